import { COMPLEXITY_LEVELS } from '@vaultline/protocol';
import { type DecodedFolderCreate, endpoints } from '@vaultline/protocol/wire';
import { MAX_FOLDER_DEPTH, MAX_RENEWAL_MONTHS, MAX_TITLE_LENGTH } from '../constants.ts';
import type { Principal } from './access.ts';
import type { Actor } from './actor.ts';
import { conflict, invalid, notFound, refused } from './errors.ts';
import type { FolderNode } from './folder-tree.ts';
import type { StoreContext } from './store-context.ts';
import { checkText } from './text-rules.ts';
import { auditWrite } from './write-audit.ts';

/**
 * A read/userfolders record, its fields in TeamPass 2's order (`id`, `title`, `level`,
 * `parent_id`, `access_type`: scripts such as tapiw read them by position), then Vaultline's own.
 */
export interface FolderRecord {
  id: string;
  title: string;
  level: string;
  parent_id: string;
  access_type: string;
  personal: string;
  /** The minimum password strength of its items (`"0"` … `"90"`). Not in TeamPass 2's record. */
  complexity_level: string;
}

/** The most folder ids one delete/folder takes: the endpoint table's batch, as TeamPass allows. */
export const MAX_FOLDERS_PER_DELETE: number = endpoints.deleteFolders.batch.size;

function checkTitle(title: string): string {
  checkText(title, 'the folder title', MAX_TITLE_LENGTH);
  if (title.trim() === '') throw invalid('Expected a non-empty folder title.');
  return title;
}

function checkComplexity(level: number): number {
  if (!(COMPLEXITY_LEVELS as readonly number[]).includes(level)) {
    throw invalid(
      `Expected complexity_level to be one of ${COMPLEXITY_LEVELS.join(', ')}, received ${level}.`,
    );
  }
  return level;
}

function checkRenewal(months: number): number {
  if (months > MAX_RENEWAL_MONTHS)
    throw invalid(`Expected renewal_period of at most ${MAX_RENEWAL_MONTHS} months, received ${months}.`);
  return months;
}

/**
 * One read/userfolders record, its fields in TeamPass 2's order: the one shape both stores answer.
 *
 * @param folder The folder, and the right the caller has on it.
 * @returns The record.
 */
export function folderRecord(folder: {
  id: number;
  title: string;
  level: number;
  parentId: number | null | undefined;
  accessType: string;
  personal: boolean;
  complexityLevel: number | undefined;
}): FolderRecord {
  return {
    id: String(folder.id),
    title: folder.title,
    level: String(folder.level),
    parent_id: String(folder.parentId ?? 0),
    access_type: folder.accessType,
    personal: folder.personal ? '1' : '0',
    complexity_level: String(folder.complexityLevel ?? 0),
  };
}

/** read/userfolders: every folder a user may access, keyed by id, with the right they have. */
export async function readUserFolders(
  ctx: StoreContext,
  userId: number,
): Promise<Record<string, FolderRecord>> {
  const [tree, rights] = await Promise.all([ctx.folders(), ctx.userRights(userId)]);
  const out: Record<string, FolderRecord> = {};
  const ids = [...rights.keys()].sort((a, b) => a - b);
  for (const id of ids) {
    const node = tree.get(id);
    if (!node) continue;
    out[String(id)] = folderRecord({
      ...node,
      id,
      accessType: rights.get(id)!,
      personal: node.personalOwner !== null,
    });
  }
  return out;
}

/**
 * add/folder. Public folders: admin keys only. Personal folders: the title is the owner's user id;
 * a user-bound key may create only its own; the parent is the root or another personal folder of
 * the same owner. With `options.id` (the import keeping a source's id), that id instead of a new
 * one: the caller checked it is free and advances the identity after (`store/identity.ts`).
 */
export async function addFolder(
  ctx: StoreContext,
  actor: Actor,
  folder: DecodedFolderCreate,
  options: { readonly id?: number | undefined } = {},
): Promise<number> {
  const { principal } = actor;
  const title = checkTitle(folder.title);
  const complexity = checkComplexity(folder.complexityLevel);
  const renewal = checkRenewal(folder.renewalPeriod);
  const tree = await ctx.folders(true);
  let parent: FolderNode | undefined;
  if (folder.parentId !== 0) {
    parent = tree.get(folder.parentId);
    if (!parent) throw notFound(`Parent folder does not exist: ${folder.parentId}.`, 'unknown_folder');
    if (parent.level >= MAX_FOLDER_DEPTH)
      throw invalid(`Folders nest at most ${MAX_FOLDER_DEPTH} levels deep.`);
  }
  let owner: number | null = null;
  if (folder.personal) {
    if (!/^[0-9]{1,16}$/.test(title)) throw invalid("A personal folder's title must be its owner's user id.");
    owner = Number(title);
    const users = await ctx.db.query('SELECT 1 FROM users WHERE id = $1', [owner]);
    if (users.length === 0) throw notFound(`User does not exist: no user with id ${owner}.`, 'unknown_user');
    if (principal.kind === 'user' && principal.userId !== owner) {
      throw refused("A user-bound key may only create the user's own personal folders.");
    }
    if (parent && parent.personalOwner !== owner) {
      throw invalid(
        "A personal folder's parent must be the root (0) or another personal folder of the same user.",
      );
    }
  } else {
    if (principal.kind !== 'admin') throw refused('Only an admin key may create public folders.');
    if (parent && parent.personalOwner !== null)
      throw invalid('A public folder cannot be placed inside a personal folder.');
  }
  const id = await ctx.db.transaction(async (tx) => {
    if (parent) {
      const exists = await tx.query('SELECT 1 FROM folders WHERE id = $1 FOR UPDATE', [parent.id]);
      if (exists.length === 0)
        throw notFound(`Parent folder does not exist: ${parent.id}.`, 'unknown_folder');
    }
    const values = [title, parent?.id ?? null, complexity, renewal, owner];
    // An id of its own (the import keeping a source's): the caller advances the identity after.
    const [row] = await tx.query<{ id: number }>(
      options.id === undefined
        ? `INSERT INTO folders (title, parent_id, complexity_level, renewal_period, personal_owner)
           VALUES ($1, $2, $3, $4, $5) RETURNING id`
        : `INSERT INTO folders (title, parent_id, complexity_level, renewal_period, personal_owner, id)
           VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      options.id === undefined ? values : [...values, options.id],
    );
    const created = Number(row!.id);
    await auditWrite(tx, actor, 'addFolder', `folder ${created}`);
    return created;
  });
  ctx.invalidate();
  return id;
}

function checkFolderWrite(principal: Principal, node: FolderNode | undefined, id: number): FolderNode {
  if (!node) throw notFound(`Folder ID does not exist: ${id}.`);
  if (principal.kind === 'user' && node.personalOwner !== principal.userId) {
    if (node.personalOwner !== null) throw notFound(`Folder ID does not exist: ${id}.`);
    throw refused(`Only an admin key may change public folder ${id}.`);
  }
  return node;
}

/** update/folder: title, complexity level and renewal period; a personal folder stays personal. */
export async function updateFolder(
  ctx: StoreContext,
  actor: Actor,
  id: number,
  folder: { title: string; complexityLevel: number; renewalPeriod: number },
) {
  const title = checkTitle(folder.title);
  const complexity = checkComplexity(folder.complexityLevel);
  const renewal = checkRenewal(folder.renewalPeriod);
  const node = checkFolderWrite(actor.principal, (await ctx.folders(true)).get(id), id);
  if (node.personalOwner !== null && title !== String(node.personalOwner)) {
    throw invalid("A personal folder's title is its owner's user id and cannot change.");
  }
  await ctx.db.transaction(async (tx) => {
    const rows = await tx.query(
      'UPDATE folders SET title = $2, complexity_level = $3, renewal_period = $4 WHERE id = $1 RETURNING id',
      [id, title, complexity, renewal],
    );
    if (rows.length === 0) throw notFound(`Folder ID does not exist: ${id}.`);
    await auditWrite(tx, actor, 'updateFolder', `folder ${id}`);
  });
  ctx.invalidate();
}

/**
 * delete/folder: deletes all the given folders, or none. A folder that still holds items, or
 * sub-folders not deleted in the same call, is refused (409).
 */
export async function deleteFolders(ctx: StoreContext, actor: Actor, ids: readonly number[]) {
  // TeamPass deletes one to four folders per call and refuses more with "No folder specified"
  // (2.1.27.36, api/functions.php: `count($array_category) < 5`); the core sends four per call.
  if (ids.length > MAX_FOLDERS_PER_DELETE)
    throw invalid(
      `Expected at most ${MAX_FOLDERS_PER_DELETE} folder ids in one delete/folder, received ${ids.length}; nothing was deleted.`,
      'too_many_folders',
    );
  const unique = [...new Set(ids)];
  const tree = await ctx.folders(true);
  for (const id of unique) checkFolderWrite(actor.principal, tree.get(id), id);
  await ctx.db.transaction(async (tx) => {
    const items = await tx.query<{ folder_id: number }>(
      'SELECT folder_id FROM items WHERE folder_id = ANY($1::bigint[]) LIMIT 1',
      [unique],
    );
    if (items.length > 0) {
      throw conflict(`Folder ${Number(items[0]!.folder_id)} still holds items; delete or move them first.`);
    }
    const children = await tx.query<{ id: number; parent_id: number }>(
      'SELECT id, parent_id FROM folders WHERE parent_id = ANY($1::bigint[]) AND NOT (id = ANY($1::bigint[])) LIMIT 1',
      [unique],
    );
    if (children.length > 0) {
      throw conflict(
        `Folder ${Number(children[0]!.parent_id)} still has sub-folders; delete them first or in the same call.`,
      );
    }
    // Children before parents: the foreign key would refuse the other order.
    const ordered = unique
      .map((id) => tree.get(id)!)
      .sort((a, b) => b.level - a.level)
      .map((node) => node.id);
    for (const id of ordered) {
      const rows = await tx.query('DELETE FROM folders WHERE id = $1 RETURNING id', [id]);
      if (rows.length === 0) throw notFound(`Folder ID does not exist: ${id}.`);
    }
    await auditWrite(tx, actor, 'deleteFolders', `folders ${unique.join(',')}`);
  });
  ctx.invalidate();
}
