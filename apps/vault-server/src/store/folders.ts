import { COMPLEXITY_LEVELS } from '@vaultline/protocol';
import type { DecodedFolderCreate } from '@vaultline/protocol/wire';
import { MAX_FOLDER_DEPTH, MAX_RENEWAL_MONTHS, MAX_TITLE_LENGTH } from '../constants.ts';
import type { Principal } from './access.ts';
import type { Actor } from './actor.ts';
import { conflict, invalid, notFound, refused } from './errors.ts';
import type { FolderNode } from './folder-tree.ts';
import type { StoreContext } from './store-context.ts';
import { checkText } from './text-rules.ts';
import { auditWrite } from './write-audit.ts';

/** A read/userfolders record. */
export interface FolderRecord {
  id: string;
  title: string;
  level: string;
  access_type: string;
  parent_id: string;
  personal: string;
  /** The folder's strength rule, so that clients generate and check passwords by it (§2.2). */
  complexity_level: string;
}

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
    out[String(id)] = {
      id: String(id),
      title: node.title,
      level: String(node.level),
      access_type: rights.get(id)!,
      parent_id: String(node.parentId ?? 0),
      personal: node.personalOwner === null ? '0' : '1',
      complexity_level: String(node.complexityLevel),
    };
  }
  return out;
}

/**
 * add/folder. Public folders: admin keys only. Personal folders: the title is the owner's user id;
 * a user-bound key may create only its own; the parent is the root or another personal folder of
 * the same owner.
 */
export async function addFolder(
  ctx: StoreContext,
  actor: Actor,
  folder: DecodedFolderCreate,
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
    const [row] = await tx.query<{ id: number }>(
      `INSERT INTO folders (title, parent_id, complexity_level, renewal_period, personal_owner)
       VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [title, parent?.id ?? null, complexity, renewal, owner],
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
