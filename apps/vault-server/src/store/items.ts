import {
  type ItemCustomField,
  type ItemOtpSecret,
  joinWordParts,
  MAX_SEARCH_LENGTH,
  parseId,
  permissionsOf,
  searchWords,
} from '@vaultline/protocol';
import type { ItemValues, ItemWireRecord } from '@vaultline/protocol/wire';
import type { Queryable } from '@vaultline/store';
import { Secret, TOTP } from 'otpauth';
import { MAX_FIND_RESULTS, MAX_LABEL_LENGTH, MAX_PASSWORD_LENGTH, MAX_VALUE_LENGTH } from '../constants.ts';
import type { Principal } from './access.ts';
import type { Actor } from './actor.ts';
import { conflict, invalid, notFound, refused } from './errors.ts';
import type { FolderNode, FolderTree } from './folder-tree.ts';
import { drawIds } from './identity.ts';
import type { ItemRow } from './item-row.ts';
import { openItemSecret, sealItemSecret } from './item-secrets.ts';
import type { StoreContext } from './store-context.ts';
import { checkText, escapeLike, foldedForms, labelKey, searchKey } from './text-rules.ts';
import { auditWrite, auditWrites } from './write-audit.ts';

/** An item record as the API answers it: every value a string. */
export type ItemRecord = ItemWireRecord;

const ITEM_COLUMNS =
  'id, folder_id, label, description, login, email, url, password, totp IS NOT NULL AS has_otp, fields';

function toRecord(ctx: StoreContext, tree: FolderTree, row: ItemRow): ItemRecord {
  const id = Number(row.id);
  const record: ItemRecord = {
    id: String(row.id),
    label: row.label,
    description: row.description,
    login: row.login,
    email: row.email,
    url: row.url,
    pw: openItemSecret(ctx.box, id, 'password', row.password),
    folder_id: String(row.folder_id),
    path: tree.get(Number(row.folder_id))?.path ?? '',
  };
  // Only items that have them: records of the others stay as the spec shows them.
  if (row.has_otp) record.otp = '1';
  if (row.fields !== null)
    record.fields = JSON.parse(openItemSecret(ctx.box, id, 'fields', row.fields)) as ItemCustomField[];
  return record;
}

// Rights maps are cached and never mutated: derive the readable set once per map.
const readableSets = new WeakMap<ReadonlyMap<number, unknown>, ReadonlySet<number>>();

async function readable(ctx: StoreContext, principal: Principal): Promise<ReadonlySet<number>> {
  const rights = await ctx.rights(principal);
  let set = readableSets.get(rights);
  if (!set) {
    const fresh = new Set<number>();
    for (const [id, right] of rights) if (permissionsOf(right).read) fresh.add(id);
    readableSets.set(rights, fresh);
    set = fresh;
  }
  return set;
}

/** read/items: the items with these ids that exist and that the caller may read, in id order. */
export async function readItems(ctx: StoreContext, principal: Principal, ids: readonly number[]) {
  const [tree, allowed] = await Promise.all([ctx.folders(), readable(ctx, principal)]);
  const unique = [...new Set(ids)].sort((a, b) => a - b);
  const cached = new Map<number, ItemRow>();
  const missing: number[] = [];
  // Only a row the caller may read comes from the cache (and goes to it): any other id costs the
  // query a nonexistent one costs, so the time of the answer tells neither from the other.
  for (const id of unique) {
    const row = ctx.itemCache.get(id);
    if (row && allowed.has(Number(row.folder_id))) cached.set(id, row);
    else missing.push(id);
  }
  if (missing.length > 0) {
    const generation = ctx.itemGeneration();
    const fetched = await ctx.db.query<ItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM items WHERE id = ANY($1::bigint[])`,
      [missing],
    );
    const fresh = generation === ctx.itemGeneration();
    for (const row of fetched) {
      cached.set(Number(row.id), row);
      if (fresh && allowed.has(Number(row.folder_id))) ctx.itemCache.set(Number(row.id), row);
    }
  }
  const rows = unique.flatMap((id) => {
    const row = cached.get(id);
    return row ? [row] : [];
  });
  return rows.filter((row) => allowed.has(Number(row.folder_id))).map((row) => toRecord(ctx, tree, row));
}

/** read/folder: the items of the given folders the caller may read, in id order. */
export async function readFolderItems(ctx: StoreContext, principal: Principal, folderIds: readonly number[]) {
  const [tree, allowed] = await Promise.all([ctx.folders(), readable(ctx, principal)]);
  const wanted = [...new Set(folderIds)].filter((id) => allowed.has(id));
  if (wanted.length === 0) return [];
  const rows = await ctx.db.query<ItemRow>(
    `SELECT ${ITEM_COLUMNS} FROM items WHERE folder_id = ANY($1::bigint[]) ORDER BY id`,
    [wanted],
  );
  return rows.map((row) => toRecord(ctx, tree, row));
}

/** read/userpw: every item a user may read, keyed by id. */
export async function readUserItems(ctx: StoreContext, userId: number): Promise<Record<string, ItemRecord>> {
  const [tree, rights] = await Promise.all([ctx.folders(), ctx.userRights(userId)]);
  const folderIds = [...rights.keys()];
  const out: Record<string, ItemRecord> = {};
  if (folderIds.length === 0) return out;
  const rows = await ctx.db.query<ItemRow>(
    `SELECT ${ITEM_COLUMNS} FROM items WHERE folder_id = ANY($1::bigint[]) ORDER BY id`,
    [folderIds],
  );
  for (const row of rows) out[String(row.id)] = toRecord(ctx, tree, row);
  return out;
}

/**
 * What find/item matches: `words` (this server's own search: every word of the text in the label,
 * login, URL or a folder title of the item's path) or `label` (the legacy meaning, TeamPass's: the
 * label contains the whole text).
 */
export type FindMatch = 'words' | 'label';

// Folder titles are folded once per folder tree (trees are cached and never mutated).
const foldedPaths = new WeakMap<FolderTree, ReadonlyMap<number, readonly string[]>>();

/** Each folder's path as folded titles, root first. */
function pathsOf(tree: FolderTree): ReadonlyMap<number, readonly string[]> {
  let paths = foldedPaths.get(tree);
  if (!paths) {
    const fresh = new Map<number, string[]>();
    for (const node of tree.values()) {
      const titles: string[] = [];
      // The tree's loader already bounds the depth; the bound here only guards a cycle.
      for (let at: FolderNode | undefined = node, depth = 0; at && depth < 1000; depth++) {
        titles.unshift(at.title);
        at = at.parentId === null ? undefined : tree.get(at.parentId);
      }
      fresh.set(node.id, foldedForms(titles));
    }
    foldedPaths.set(tree, fresh);
    paths = fresh;
  }
  return paths;
}

/** The words that narrow: a word inside another word is found wherever that one is. */
function narrowingWords(words: readonly string[]): string[] {
  // The words are distinct: one that contains another is longer.
  return words.filter((word) => !words.some((other) => other !== word && other.includes(word)));
}

/**
 * Checks a search text: at most the core's {@link MAX_SEARCH_LENGTH} characters, counted as the
 * core counts them (code points: 100 emoji are 200 UTF-16 units), and no NUL.
 */
export function checkSearchText(text: string): void {
  const length = [...text.trim()].length;
  if (length > MAX_SEARCH_LENGTH)
    throw invalid(
      `Expected the search string of at most ${MAX_SEARCH_LENGTH} characters, received ${length}.`,
    );
  checkText(text, 'the search string', Number.POSITIVE_INFINITY);
}

/**
 * find/item, in the given folders only (not their sub-folders), at most {@link MAX_FIND_RESULTS},
 * in id order. Text and values are folded with the core's `foldLabel` (no case, accents,
 * compatibility forms or surrounding spaces, as TeamPass's accent-insensitive collation compares).
 * With `words` (the default), the items where every white-space-separated word is in the label,
 * login, URL or a folder title of the item's path, found through the trigram-indexed `search_key`
 * and the folder tree in memory; with `label`, the items whose label contains the whole text.
 */
export async function findItems(
  ctx: StoreContext,
  principal: Principal,
  folderIds: readonly number[],
  text: string,
  match: FindMatch = 'words',
) {
  checkSearchText(text);
  const words = searchWords(text);
  if (words.length === 0)
    throw invalid('Expected a search string with something besides spaces and accents.');
  const [tree, allowed] = await Promise.all([ctx.folders(), readable(ctx, principal)]);
  const wanted = [...new Set(folderIds)].filter((id) => allowed.has(id));
  if (wanted.length === 0) return [];
  const params: unknown[] = [wanted];
  const conditions: string[] = [];
  const like = (column: string, value: string) => {
    params.push(`%${escapeLike(value)}%`);
    return `${column} LIKE $${params.length} ESCAPE '\\'`;
  };
  if (match === 'label') {
    conditions.push(like('label_key', labelKey(text)));
  } else {
    const paths = pathsOf(tree);
    for (const word of narrowingWords(words)) {
      // A word is also looked for without its inner punctuation, as the core compares.
      const forms = [...new Set([word, joinWordParts(word)])];
      const inPath = wanted.filter((id) =>
        paths.get(id)?.some((title) => forms.some((form) => title.includes(form))),
      );
      // Every searched folder's path holds the word: it narrows nothing.
      if (inPath.length === wanted.length) continue;
      const inKey =
        forms.length === 1
          ? like('search_key', word)
          : `(${forms.map((form) => like('search_key', form)).join(' OR ')})`;
      if (inPath.length === 0) {
        conditions.push(inKey);
        continue;
      }
      params.push(inPath);
      conditions.push(`(${inKey} OR folder_id = ANY($${params.length}::bigint[]))`);
    }
  }
  const rows = await ctx.db.query<ItemRow>(
    `SELECT ${ITEM_COLUMNS} FROM items
      WHERE ${['folder_id = ANY($1::bigint[])', ...conditions].join(' AND ')}
      ORDER BY id LIMIT ${MAX_FIND_RESULTS}`,
    params,
  );
  return rows.map((row) => ({ ...toRecord(ctx, tree, row), status: 'OK' }));
}

/** Items whose search key is filled in per statement by {@link fillSearchKeys}. */
const FILL_BATCH = 1_000;

/**
 * Fills in the search key of the items that have none (every item, once, after the migration that
 * added it; items written by an older version of the server since), in batches.
 *
 * @returns How many items were filled in.
 */
export async function fillSearchKeys(db: Queryable): Promise<number> {
  let filled = 0;
  for (;;) {
    const rows = await db.query<{ id: number; label: string; login: string; url: string }>(
      `SELECT id, label, login, url FROM items WHERE search_key = '' ORDER BY id LIMIT ${FILL_BATCH}`,
    );
    if (rows.length === 0) return filled;
    await db.query(
      `UPDATE items SET search_key = filled.key
         FROM unnest($1::bigint[], $2::text[]) AS filled(id, key)
        WHERE items.id = filled.id`,
      [rows.map((row) => Number(row.id)), rows.map((row) => searchKey(row))],
    );
    filled += rows.length;
  }
}

/** Validated item values. */
interface ItemInput {
  label: string;
  password: string;
  description: string;
  folderId: number;
  login: string;
  email: string;
  url: string;
  tags: string;
  anyoneCanModify: boolean;
}

/**
 * Checks item values as add/item would, without writing.
 *
 * @throws {StoreError} `invalid`, saying which value breaks which rule.
 */
export function checkItemValues(values: ItemValues): void {
  parseValues(values);
}

/**
 * Which of these labels compare equal to an item's label already in the vault.
 *
 * @returns The folded forms ({@link labelKey}) taken.
 */
export async function takenLabelKeys(db: Queryable, labels: readonly string[]): Promise<Set<string>> {
  const keys = [...new Set(labels.map((label) => labelKey(label)))];
  if (keys.length === 0) return new Set();
  const rows = await db.query<{ label_key: string }>(
    'SELECT label_key FROM items WHERE label_key = ANY($1::text[])',
    [keys],
  );
  return new Set(rows.map((row) => row.label_key));
}

function parseValues(values: ItemValues): ItemInput {
  const label = checkText(values.label, 'the label', MAX_LABEL_LENGTH);
  if (label.trim() === '') throw invalid('Expected a non-empty label.');
  // Passwords are encrypted into bytea, so any character (NUL included) is kept.
  const password = values.password;
  if (password.length > MAX_PASSWORD_LENGTH) {
    throw invalid(
      `Expected the password of at most ${MAX_PASSWORD_LENGTH} characters, received ${password.length}.`,
    );
  }
  if (password === '') throw invalid('Expected a non-empty password.');
  // The core's one id reader: canonical digits only (`1 `, `+1`, `1.0` and `01` are refused).
  const folderId = parseId(values.folderId);
  if (folderId === undefined) {
    throw invalid(
      `Expected folder_id to be a positive integer, received ${JSON.stringify(values.folderId.slice(0, 20))}.`,
    );
  }
  const flag = values.anyoneCanModify.trim();
  if (flag !== '' && flag !== '0' && flag !== '1') {
    throw invalid(`Expected any_one_can_modify to be 0 or 1, received ${JSON.stringify(flag.slice(0, 20))}.`);
  }
  return {
    label,
    password,
    description: checkText(values.description, 'the description', MAX_VALUE_LENGTH),
    folderId,
    login: checkText(values.login, 'the login', MAX_VALUE_LENGTH),
    email: checkText(values.email, 'the email', MAX_VALUE_LENGTH),
    url: checkText(values.url, 'the url', MAX_VALUE_LENGTH),
    tags: checkText(values.tags, 'the tags', MAX_VALUE_LENGTH),
    anyoneCanModify: flag === '1',
  };
}

function similarLabel() {
  return conflict('Label already exists: an item with a similar label exists.', 'similar_label');
}

async function checkLabelFree(tx: Queryable, key: string, exceptId: number | undefined) {
  const rows = await tx.query<{ id: number }>('SELECT id FROM items WHERE label_key = $1', [key]);
  if (rows.some((row) => Number(row.id) !== exceptId)) {
    throw similarLabel();
  }
}

/** A unique violation of the label: another (of an id, say) is a defect, not a similar label. */
function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  return code === '23505' && (constraint === undefined || constraint === 'items_label_key');
}

async function folderFor(ctx: StoreContext, principal: Principal, folderId: number, need: 'create') {
  const tree = await ctx.folders(true);
  if (!tree.has(folderId)) throw notFound(`Folder ID does not exist: ${folderId}.`, 'unknown_folder');
  const rights = await ctx.rights(principal, true);
  const caps = permissionsOf(rights.get(folderId));
  if (!caps.read) throw notFound(`Folder ID does not exist: ${folderId}.`, 'unknown_folder');
  if (need === 'create' && !caps.add) throw refused(`This key may not add items to folder ${folderId}.`);
}

/**
 * The stored columns of an item, in the order add and update write them: folder_id, label,
 * label_key, description, login, email, url, tags, anyone_can_modify, password (sealed for item
 * `id`), search_key.
 */
function itemColumns(ctx: StoreContext, input: ItemInput, key: string, id: number): unknown[] {
  return [
    input.folderId,
    input.label,
    key,
    input.description,
    input.login,
    input.email,
    input.url,
    input.tags,
    input.anyoneCanModify,
    sealItemSecret(ctx.box, id, 'password', input.password),
    searchKey(input),
  ];
}

/** How many values a row of {@link addItems} has: its id and what {@link itemColumns} gives. */
const ITEM_VALUES = 12;

/** add/item: one new item; fails on a similar label anywhere in the vault. */
export async function addItem(ctx: StoreContext, actor: Actor, values: ItemValues): Promise<number> {
  const input = parseValues(values);
  await folderFor(ctx, actor.principal, input.folderId, 'create');
  const key = labelKey(input.label);
  try {
    return await ctx.db.transaction(async (tx) => {
      await checkLabelFree(tx, key, undefined);
      const [id] = (await drawIds(tx, 'items', 1)) as [number];
      await tx.query(
        `INSERT INTO items (folder_id, label, label_key, description, login, email, url, tags, anyone_can_modify, password, search_key, id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [...itemColumns(ctx, input, key, id), id],
      );
      await auditWrite(tx, actor, 'addItem', `item ${id}`);
      return id;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw similarLabel();
    throw error;
  }
}

/** Rows per INSERT of {@link addItems}: twelve parameters each, well under PostgreSQL's 65,535. */
const ROWS_PER_INSERT = 500;

/**
 * Adds many items at once with the checks of add/item (values, folder rights, labels similar to
 * one another or to any item of the vault) and one audit record each: for benchmarks and the
 * import. Runs in `within` when given (the caller's transaction), else in a transaction of its own.
 * `ids` gives an item the id it must have (the import keeping a source's; `undefined`: a new one):
 * the caller checked they are free and advances the identity after (`store/identity.ts`).
 *
 * @returns The ids, in the order of `values`.
 */
export async function addItems(
  ctx: StoreContext,
  actor: Actor,
  values: readonly ItemValues[],
  within?: Queryable,
  ids?: readonly (number | undefined)[],
): Promise<number[]> {
  const inputs = values.map(parseValues);
  const keys = inputs.map((input) => labelKey(input.label));
  if (new Set(keys).size !== keys.length) throw similarLabel();
  const run = async (tx: Queryable): Promise<number[]> => {
    const folderIds = [...new Set(inputs.map((input) => input.folderId))];
    const present = await tx.query<{ id: number }>('SELECT id FROM folders WHERE id = ANY($1::bigint[])', [
      folderIds,
    ]);
    const found = new Set(present.map((row) => Number(row.id)));
    const missing = folderIds.find((id) => !found.has(id));
    if (missing !== undefined) throw notFound(`Folder ID does not exist: ${missing}.`, 'unknown_folder');
    if (actor.principal.kind !== 'admin') {
      for (const id of folderIds) await folderFor(ctx, actor.principal, id, 'create');
    }
    const taken = await tx.query('SELECT 1 FROM items WHERE label_key = ANY($1::text[]) LIMIT 1', [keys]);
    if (taken.length > 0) throw similarLabel();
    // Ids first: each password is sealed for its row.
    const drawn = await drawIds(tx, 'items', inputs.filter((_, i) => ids?.[i] === undefined).length);
    const added = inputs.map((_, i) => ids?.[i] ?? drawn.shift()!);
    for (let start = 0; start < inputs.length; start += ROWS_PER_INSERT) {
      const chunk = inputs.slice(start, start + ROWS_PER_INSERT);
      const params = chunk.flatMap((input, i) => [
        added[start + i]!,
        ...itemColumns(ctx, input, keys[start + i]!, added[start + i]!),
      ]);
      const rows = chunk.map(
        (_, i) =>
          `(${Array.from({ length: ITEM_VALUES }, (_, j) => `$${i * ITEM_VALUES + j + 1}`).join(', ')})`,
      );
      await tx.query(
        `INSERT INTO items (id, folder_id, label, label_key, description, login, email, url, tags, anyone_can_modify, password, search_key)
         VALUES ${rows.join(', ')}`,
        params,
      );
    }
    await auditWrites(
      tx,
      actor,
      'addItem',
      added.map((id) => `item ${id}`),
    );
    return added;
  };
  try {
    return within ? await run(within) : await ctx.db.transaction(run);
  } catch (error) {
    if (isUniqueViolation(error)) throw similarLabel();
    throw error;
  }
}

async function itemForChange(ctx: StoreContext, principal: Principal, id: number, need: 'edit' | 'delete') {
  const rows = await ctx.db.query<{ folder_id: number; anyone_can_modify: boolean }>(
    'SELECT folder_id, anyone_can_modify FROM items WHERE id = $1',
    [id],
  );
  const row = rows[0];
  if (!row) throw notFound(`No item with id ${id}.`);
  const rights = await ctx.rights(principal, true);
  const caps = permissionsOf(rights.get(Number(row.folder_id)));
  if (!caps.read) throw notFound(`No item with id ${id}.`);
  const allowed = need === 'edit' ? caps.edit || row.anyone_can_modify : caps.delete;
  if (!allowed) throw refused(`This key may not ${need} item ${id}.`);
  return Number(row.folder_id);
}

/** update/item: replaces all nine values. */
export async function updateItem(ctx: StoreContext, actor: Actor, id: number, values: ItemValues) {
  const input = parseValues(values);
  const currentFolder = await itemForChange(ctx, actor.principal, id, 'edit');
  if (input.folderId !== currentFolder) await folderFor(ctx, actor.principal, input.folderId, 'create');
  const key = labelKey(input.label);
  ctx.forgetItems([id]);
  try {
    await ctx.db.transaction(async (tx) => {
      await checkLabelFree(tx, key, id);
      const rows = await tx.query(
        `UPDATE items SET folder_id = $2, label = $3, label_key = $4, description = $5, login = $6, email = $7,
           url = $8, tags = $9, anyone_can_modify = $10, password = $11, search_key = $12, updated_at = now()
         WHERE id = $1 RETURNING id`,
        [id, ...itemColumns(ctx, input, key, id)],
      );
      if (rows.length === 0) throw notFound(`No item with id ${id}.`);
      await auditWrite(tx, actor, 'updateItem', `item ${id}`);
    });
  } catch (error) {
    ctx.forgetItems([id]);
    if (isUniqueViolation(error)) throw similarLabel();
    throw error;
  }
  ctx.forgetItems([id]);
}

/** delete/item: deletes all the given items, or none when one of them cannot be deleted. */
export async function deleteItems(ctx: StoreContext, actor: Actor, ids: readonly number[]) {
  const unique = [...new Set(ids)];
  for (const id of unique) await itemForChange(ctx, actor.principal, id, 'delete');
  ctx.forgetItems(unique);
  try {
    await ctx.db.transaction(async (tx) => {
      const rows = await tx.query('DELETE FROM items WHERE id = ANY($1::bigint[]) RETURNING id', [unique]);
      if (rows.length !== unique.length)
        throw notFound('An item was deleted by another request; nothing was deleted.');
      await auditWrite(tx, actor, 'deleteItems', `items ${unique.join(',')}`);
    });
  } finally {
    ctx.forgetItems(unique);
  }
}

/** What an item may hold besides the nine values of the legacy API: sealed like its password. */
export interface ItemExtras {
  /** Its TOTP secret and profile. */
  readonly otp?: ItemOtpSecret | undefined;
  /** Its custom fields. */
  readonly fields?: readonly ItemCustomField[] | undefined;
}

const TOTP_ALGORITHMS = ['sha1', 'sha256', 'sha512'] as const;

/**
 * Checks a TOTP profile and normalises its secret as TeamPass does (spaces, hyphens and `=`
 * padding dropped, upper case).
 *
 * @returns The profile to store.
 * @throws {StoreError} `invalid`, saying what is wrong (never the secret).
 */
export function checkOtpSecret(otp: ItemOtpSecret): ItemOtpSecret {
  const secret = otp.secret
    .replace(/[\s-]+/g, '')
    .replace(/=+$/, '')
    .toUpperCase();
  if (secret === '' || !/^[A-Z2-7]+$/.test(secret))
    throw invalid('Expected the TOTP secret in Base32 (A to Z, 2 to 7).');
  const algorithm = otp.algorithm.toLowerCase();
  if (!(TOTP_ALGORITHMS as readonly string[]).includes(algorithm))
    throw invalid(`Expected the TOTP algorithm to be one of ${TOTP_ALGORITHMS.join(', ')}.`);
  if (!Number.isInteger(otp.digits) || otp.digits < 6 || otp.digits > 8)
    throw invalid('Expected TOTP codes of 6 to 8 digits.');
  if (!Number.isInteger(otp.period) || otp.period < 1 || otp.period > 86_400)
    throw invalid('Expected a TOTP period of 1 to 86400 seconds.');
  return { secret, algorithm, digits: otp.digits, period: otp.period };
}

/**
 * Stores an item's TOTP secret and custom fields, sealed (the import, in its transaction).
 *
 * @param tx The transaction.
 * @param ctx The store (its secret box).
 * @param id The item.
 * @param extras What to store; what is absent stays as it is.
 */
export async function setItemExtras(tx: Queryable, ctx: StoreContext, id: number, extras: ItemExtras) {
  if (extras.otp !== undefined) {
    const otp = checkOtpSecret(extras.otp);
    await tx.query('UPDATE items SET totp = $2 WHERE id = $1', [
      id,
      sealItemSecret(ctx.box, id, 'totp', JSON.stringify(otp)),
    ]);
  }
  if (extras.fields !== undefined && extras.fields.length > 0) {
    const fields = extras.fields.map((field) => ({
      title: checkText(field.title, 'a custom field title', MAX_LABEL_LENGTH),
      type: checkText(field.type, 'a custom field type', MAX_LABEL_LENGTH),
      masked: field.masked,
      value: checkText(field.value, 'a custom field value', MAX_VALUE_LENGTH),
    }));
    await tx.query('UPDATE items SET fields = $2 WHERE id = $1', [
      id,
      sealItemSecret(ctx.box, id, 'fields', JSON.stringify(fields)),
    ]);
  }
  ctx.forgetItems([id]);
}

/** read/otp: an item's current one-time code, as strings like every record of the API. */
export interface OtpRecord {
  item_id: string;
  code: string;
  expires_in: string;
  period: string;
  digits: string;
}

/**
 * read/otp: the current one-time code of an item the caller may read (RFC 6238, as TeamPass
 * computes it for `item/getOtp`). The secret never leaves the server.
 *
 * @param now The time, in ms.
 * @throws {StoreError} `not_found` for an item that does not exist, that the caller may not read,
 *   or that has no TOTP secret.
 */
export async function readOtp(
  ctx: StoreContext,
  principal: Principal,
  id: number,
  now: number = Date.now(),
): Promise<OtpRecord> {
  const [row] = await ctx.db.query<{ folder_id: number; totp: Uint8Array | null }>(
    'SELECT folder_id, totp FROM items WHERE id = $1',
    [id],
  );
  if (!row || !(await readable(ctx, principal)).has(Number(row.folder_id)))
    throw notFound(`No item with id ${id}.`);
  if (row.totp === null) throw notFound(`Item ${id} has no one-time code (no TOTP secret is set).`);
  const otp = JSON.parse(openItemSecret(ctx.box, id, 'totp', row.totp)) as ItemOtpSecret;
  const totp = new TOTP({
    secret: Secret.fromBase32(otp.secret),
    algorithm: otp.algorithm.toUpperCase(),
    digits: otp.digits,
    period: otp.period,
  });
  const seconds = Math.floor(now / 1000);
  return {
    item_id: String(id),
    code: totp.generate({ timestamp: now }),
    expires_in: String(otp.period - (seconds % otp.period)),
    period: String(otp.period),
    digits: String(otp.digits),
  };
}
