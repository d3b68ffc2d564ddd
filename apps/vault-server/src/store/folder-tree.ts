import type { Queryable } from '@vaultline/store';

/** One folder as the server keeps it in memory. */
export interface FolderNode {
  readonly id: number;
  readonly title: string;
  readonly parentId: number | null;
  readonly complexityLevel: number;
  readonly renewalPeriod: number;
  /** The owner's user id for a personal folder. */
  readonly personalOwner: number | null;
  /** Depth in the tree: children of the root have level 1. */
  readonly level: number;
  /** The titles from the root down to this folder, joined by ` > `. */
  readonly path: string;
}

/** Every folder by id. */
export type FolderTree = ReadonlyMap<number, FolderNode>;

interface FolderRow {
  id: number;
  title: string;
  parent_id: number | null;
  complexity_level: number;
  renewal_period: number;
  personal_owner: number | null;
}

/** Reads all folders and computes levels and paths. */
export async function loadFolderTree(db: Queryable): Promise<FolderTree> {
  const rows = await db.query<FolderRow>(
    'SELECT id, title, parent_id, complexity_level, renewal_period, personal_owner FROM folders',
  );
  const byId = new Map<number, FolderRow>();
  for (const row of rows) byId.set(Number(row.id), row);
  const tree = new Map<number, FolderNode>();
  const resolve = (id: number, depth: number): FolderNode | undefined => {
    const done = tree.get(id);
    if (done) return done;
    const row = byId.get(id);
    if (!row || depth > 1000) return undefined;
    const parentId = row.parent_id === null ? null : Number(row.parent_id);
    const parent = parentId === null ? undefined : resolve(parentId, depth + 1);
    const node: FolderNode = {
      id,
      title: row.title,
      parentId,
      complexityLevel: Number(row.complexity_level),
      renewalPeriod: Number(row.renewal_period),
      personalOwner: row.personal_owner === null ? null : Number(row.personal_owner),
      level: parent ? parent.level + 1 : 1,
      path: parent ? `${parent.path} > ${row.title}` : row.title,
    };
    tree.set(id, node);
    return node;
  };
  for (const id of byId.keys()) resolve(id, 0);
  return tree;
}
