import { type AccessType, unionOfRights } from '@vaultline/protocol';
import type { Database, Queryable } from '@vaultline/store';
import { LRUCache } from 'lru-cache';
import { COHERENT_CACHE_TTL_MS } from '../constants.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { ChangeFeed, ChangeHandlers } from '../db/changes.ts';
import type { Principal } from './access.ts';
import type { KeyIdentity } from './api-keys.ts';
import { type FolderTree, loadFolderTree } from './folder-tree.ts';
import type { ItemRow } from './item-row.ts';

/** What the store needs of a cache: lru-cache's own methods, or nothing cached when caching is off. */
export interface ExpiringCache<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): unknown;
  delete(key: K): unknown;
  clear(): void;
}

/** The most users whose rights, and keys whose identity, are kept. */
const MAX_CACHED_PRINCIPALS = 10_000;
/** The most item rows kept (PGlite only): the hot ones, not the whole vault. */
const MAX_CACHED_ITEMS = 10_000;

/**
 * A bounded cache whose entries expire after `ttlMs`; with `ttlMs <= 0`, one that keeps nothing
 * (lru-cache reads a ttl of 0 as "never expires").
 */
function expiringCache<K extends {}, V extends {}>(ttlMs: number, max: number): ExpiringCache<K, V> {
  if (ttlMs <= 0) return { get: () => undefined, set: () => undefined, delete: () => false, clear: () => {} };
  return new LRUCache<K, V>({ max, ttl: ttlMs });
}

/** What every store operation shares: the database, the secret box and the caches. */
export interface StoreContext {
  readonly db: Database;
  readonly box: SecretBox;
  /**
   * Every folder, cached. `fresh` (for writes) reads the database unless the cache is exact.
   */
  folders(fresh?: boolean): Promise<FolderTree>;
  /** The rights of a principal per folder: every folder `W` for an admin key. */
  rights(principal: Principal, fresh?: boolean): Promise<ReadonlyMap<number, AccessType>>;
  /** The rights of a user per folder, personal folders included. */
  userRights(userId: number, fresh?: boolean): Promise<ReadonlyMap<number, AccessType>>;
  /** Authenticated keys by hash, cached briefly; cleared with the rest. */
  readonly keyCache: ExpiringCache<string, KeyIdentity>;
  /**
   * Item rows (password still encrypted, never decrypted ones) by id. On PGlite this process is
   * the only writer (the data directory is locked), so the cache is exact. On PostgreSQL the
   * database announces every committed change to items (`db/changes.ts`) and this cache forgets
   * them; it keeps nothing while those announcements cannot be received, and rows expire after
   * the cache time in any case.
   */
  readonly itemCache: ExpiringCache<number, ItemRow>;
  /**
   * PostgreSQL: whether the database's change announcements are being received, and since when;
   * undefined where nothing listens (PGlite, or caches off).
   */
  changes(): { readonly listening: boolean; readonly since: Date } | undefined;
  /** Counts item writes: a read that started before a write must not fill the cache. */
  itemGeneration(): number;
  /**
   * Counts changes to access (folders, users, roles, rights, keys), announced or made here: a read
   * of any of them that started before a change must not fill a cache (`keyCache` included).
   */
  accessGeneration(): number;
  /** Forgets cached item rows after a write. */
  forgetItems(ids: readonly number[]): void;
  /** Forgets cached folders, rights and keys: after any change to them. */
  invalidate(): void;
  /** Stops listening to the database's announcements. */
  close(): Promise<void>;
}

/** Subscribes to the database's change announcements (PostgreSQL: `db/listen-postgres.ts`). */
export type ListenToChanges = (handlers: ChangeHandlers) => ChangeFeed;

/**
 * Reads a user's rights: the most permissive right over all of the user's roles, plus `W` on the
 * user's own personal folders.
 */
export async function loadUserRights(
  db: Queryable,
  tree: FolderTree,
  userId: number,
): Promise<Map<number, AccessType>> {
  const rows = await db.query<{ folder_id: number; access_type: AccessType }>(
    `SELECT rr.folder_id, rr.access_type FROM role_rights rr
       JOIN user_roles ur ON ur.role_id = rr.role_id WHERE ur.user_id = $1`,
    [userId],
  );
  const rights = new Map<number, AccessType>();
  for (const row of rows) {
    const id = Number(row.folder_id);
    const node = tree.get(id);
    // A personal folder is visible to its owner only, whatever a role says.
    if (!node || node.personalOwner !== null) continue;
    rights.set(id, unionOfRights([rights.get(id), row.access_type]));
  }
  for (const node of tree.values()) if (node.personalOwner === userId) rights.set(node.id, 'W');
  return rights;
}

/**
 * Creates the shared context. On PGlite every write goes through this process, so caches are
 * invalidated exactly and kept long. On PostgreSQL other instances write too: caches forget what
 * the database announces as changed, expire after `cacheTtlMs` in any case, and keep nothing while
 * the announcements are not received (nor without `listen`): every read then goes to the
 * database, slower but never stale.
 *
 * @param db The database.
 * @param box Seals and opens passwords.
 * @param cacheTtlMs How long cached entries live on PostgreSQL; 0 turns caching off.
 * @param listen PostgreSQL: subscribes to the database's change announcements.
 * @returns The context.
 */
export function createStoreContext(
  db: Database,
  box: SecretBox,
  cacheTtlMs: number,
  listen?: ListenToChanges,
): StoreContext {
  const coherent = db.kind === 'pglite';
  const ttl = cacheTtlMs > 0 && coherent ? COHERENT_CACHE_TTL_MS : cacheTtlMs;
  // On PostgreSQL, caches hold entries only while the database's announcements arrive: while they
  // are lost, a key revoked or a right changed elsewhere would stay unseen until the cache time.
  let live = coherent;
  const whileLive = <K, V>(cache: ExpiringCache<K, V>): ExpiringCache<K, V> =>
    coherent
      ? cache
      : {
          get: (key) => (live ? cache.get(key) : undefined),
          set: (key, value) => (live ? cache.set(key, value) : undefined),
          delete: (key) => cache.delete(key),
          clear: () => cache.clear(),
        };
  const treeCache = whileLive(expiringCache<'tree', FolderTree>(ttl, 1));
  const rightsCache = whileLive(
    expiringCache<number, ReadonlyMap<number, AccessType>>(ttl, MAX_CACHED_PRINCIPALS),
  );
  const keyCache = whileLive(expiringCache<string, KeyIdentity>(ttl, MAX_CACHED_PRINCIPALS));
  const rows = expiringCache<number, ItemRow>(ttl, MAX_CACHED_ITEMS);
  // An admin's rights follow from the tree alone: computed once per tree.
  const adminRights = new WeakMap<FolderTree, ReadonlyMap<number, AccessType>>();
  let itemGeneration = 0;
  let generation = 0;

  async function folders(fresh = false): Promise<FolderTree> {
    const cached = fresh && !coherent ? undefined : treeCache.get('tree');
    if (cached) return cached;
    const started = generation;
    const tree = await loadFolderTree(db);
    if (started === generation) treeCache.set('tree', tree);
    return tree;
  }

  async function userRights(userId: number, fresh = false): Promise<ReadonlyMap<number, AccessType>> {
    const cached = fresh && !coherent ? undefined : rightsCache.get(userId);
    if (cached) return cached;
    const started = generation;
    const rights = await loadUserRights(db, await folders(fresh), userId);
    if (started === generation) rightsCache.set(userId, rights);
    return rights;
  }

  async function rights(principal: Principal, fresh = false): Promise<ReadonlyMap<number, AccessType>> {
    if (principal.kind === 'user') return userRights(principal.userId, fresh);
    // A machine key of upstream mode has no rights in the server's own vault.
    if (principal.kind === 'upstream') return new Map();
    const tree = await folders(fresh);
    const known = adminRights.get(tree);
    if (known) return known;
    const all = new Map<number, AccessType>();
    for (const id of tree.keys()) all.set(id, 'W');
    adminRights.set(tree, all);
    return all;
  }

  const itemCache = whileLive(rows);
  const forgetItems = (ids: readonly number[] | 'all') => {
    itemGeneration++;
    if (ids === 'all') rows.clear();
    else for (const id of ids) rows.delete(id);
  };
  const invalidate = () => {
    generation++;
    keyCache.clear();
    treeCache.clear();
    rightsCache.clear();
  };
  // Another instance, an admin command or a hand-run statement changed something: forget it now
  // rather than at the end of the cache time.
  const feed =
    coherent || ttl <= 0
      ? undefined
      : listen?.({
          onChange(change) {
            if (change.kind === 'items') forgetItems(change.ids);
            else invalidate();
          },
          onLive(listening) {
            // Lost: stop caching. Back: changes were missed meanwhile, so forget everything.
            live = listening;
            forgetItems('all');
            invalidate();
          },
        });

  return {
    db,
    box,
    folders,
    rights,
    userRights,
    keyCache,
    itemCache,
    changes: () => (feed ? { listening: feed.live, since: feed.since } : undefined),
    itemGeneration: () => itemGeneration,
    accessGeneration: () => generation,
    forgetItems,
    invalidate,
    close: async () => feed?.close(),
  };
}
