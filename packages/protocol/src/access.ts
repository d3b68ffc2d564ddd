/**
 * Access checks for adapters that act for a person on a shared key (the Slack bot, the VS Code
 * view): on TeamPass any key reads and writes everything, so what a person may do is computed from
 * read/userfolders/<login> and read/userpw/<login>. Denies by default; never keeps a password.
 *
 * The one access layer of the adapters: the folder records are kept whole (for trees), the item
 * list (read/userpw, which carries every password of the user) is read only when a decision needs
 * it, and both caches are bounded `lru-cache`s with a TTL.
 *
 * @module
 */

import { LRUCache } from 'lru-cache';
import type { CallOptions, VaultClient } from './client/types.ts';
import { type AccessType, type Permissions, permissionsOf, type RightDefinition } from './rights.ts';
import type { Folder } from './schemas.ts';

/** What the checker keeps of one user: folder records and item → folder, no passwords. */
export interface UserAccess {
  /** The vault login. */
  readonly login: string;
  /** The folders the user may access, by id, in the vault's order: whole records (the tree shows them). */
  readonly folders: ReadonlyMap<number, Folder>;
  /** The items the user may access: item id → folder id (empty when the item list is not read). */
  readonly items: ReadonlyMap<number, number>;
  /** When the folders were read, in ms since the epoch (by the checker's clock). */
  readonly loadedAt: number;
}

/** A reference to an item: its id, and its folder when known. */
export interface ItemRef {
  /** The item id. */
  id: number;
  /** The folder that holds it, as the caller saw it. */
  folderId?: number | undefined;
}

/** Options of {@link createAccessChecker}. */
export interface AccessCheckerOptions {
  /** How long a user's folders and item list are kept, in ms (inclusive). Default 30 000. */
  ttlMs?: number | undefined;
  /** How many users' rights are kept at most (least recently used go first). Default 1000. */
  maxUsers?: number | undefined;
  /**
   * When the user's item list (read/userpw) is read:
   * - `true` (default): for every decision about an item; the list is the authority on where an
   *   item lives, the caller's `folderId` only counts for items it does not name.
   * - `'fallback'`: only when the folder the caller gives does not grant what is asked (or no
   *   folder is given): the list may then grant reading (an item it names) or place the item in
   *   another folder. For callers whose `folderId` comes from a read they trust (a tree built
   *   from read/folder): most decisions then need one request without passwords.
   * - `false`: never; decisions rest on folder rights and the caller's `folderId` alone.
   */
  itemList?: boolean | 'fallback' | undefined;
  /** The clock, for tests. */
  now?: (() => number) | undefined;
}

/** Answers what a vault user may do with an item. */
export interface AccessChecker {
  /**
   * Reads (or returns the cached) rights of a user: the folders, and the item list unless
   * `itemList` is `false`.
   *
   * @param login The vault login.
   * @returns The user's folders and items.
   */
  load(login: string, options?: CallOptions): Promise<UserAccess>;
  /**
   * The folders a user may access, whole records in the vault's order (read/userfolders, no
   * passwords): what a tree shows. Never reads the item list.
   *
   * @param login The vault login.
   * @returns The folders.
   */
  folders(login: string, options?: CallOptions): Promise<Folder[]>;
  /**
   * The user's right on a folder (`none` for a folder they cannot access), with what it allows
   * and its words ("read only"). Never reads the item list.
   *
   * @param login The vault login.
   * @param folderId The folder.
   * @returns The row of the rights table.
   */
  rightOn(login: string, folderId: number, options?: CallOptions): Promise<RightDefinition>;
  /**
   * Tells whether a user may read an item: the item is among the user's items, or its folder
   * among the user's folders. Unknown items are denied.
   *
   * @param login The vault login.
   * @param item The item.
   * @returns Whether the user may read it.
   */
  canRead(login: string, item: ItemRef | number, options?: CallOptions): Promise<boolean>;
  /**
   * Tells whether a user may add an item to a folder (the core's rights table: `W`, `ND`, `NE`,
   * `NDNE`). Never reads the item list.
   *
   * @param login The vault login.
   * @param folderId The folder.
   * @returns Whether the user may add items there.
   */
  canAdd(login: string, folderId: number, options?: CallOptions): Promise<boolean>;
  /**
   * Tells whether a user may edit an item: its folder's right allows editing (`W`, `ND`).
   *
   * @param login The vault login.
   * @param item The item.
   * @returns Whether the user may edit it.
   */
  canWrite(login: string, item: ItemRef | number, options?: CallOptions): Promise<boolean>;
  /**
   * Tells whether a user may delete an item: its folder's right allows deleting (`W`, `NE`).
   *
   * @param login The vault login.
   * @param item The item.
   * @returns Whether the user may delete it.
   */
  canDelete(login: string, item: ItemRef | number, options?: CallOptions): Promise<boolean>;
  /**
   * Keeps only the items a user may read.
   *
   * @param login The vault login.
   * @param items The items.
   * @returns The readable ones, in order.
   */
  filterReadable<T extends ItemRef>(login: string, items: readonly T[], options?: CallOptions): Promise<T[]>;
  /**
   * Forgets cached rights: of one user, or of everyone. A load already in flight still answers
   * the calls waiting for it; calls made after this read the rights afresh.
   *
   * @param login The vault login; all when absent.
   */
  invalidate(login?: string): void;
}

interface FolderEntry {
  readonly list: Folder[];
  readonly byId: ReadonlyMap<number, Folder>;
  readonly loadedAt: number;
}

type Permission = keyof Permissions;

const NO_ITEMS: ReadonlyMap<number, number> = new Map();

/**
 * Creates an access checker over a client.
 *
 * @param client The vault client (usually on a key that can read every user).
 * @param options The cache settings and when the item list is read.
 * @returns The checker.
 * @example
 * ```ts
 * const access = createAccessChecker(vault, { itemList: 'fallback' });
 * const tree = await access.folders('alice');
 * if (await access.canWrite('alice', { id: 42, folderId: 3 })) await vault.updateItemFields(42, { url });
 * ```
 */
export function createAccessChecker(
  client: Pick<VaultClient, 'readUserFolders' | 'readUserItems'>,
  options: AccessCheckerOptions = {},
): AccessChecker {
  const ttl = options.ttlMs ?? 30_000;
  const max = options.maxUsers ?? 1000;
  const itemList = options.itemList ?? true;
  const now = options.now ?? Date.now;
  // lru-cache aborts a load in flight when its key is deleted (invalidate) or evicted, and rejects
  // everyone awaiting it with `deleted`/`evicted`; `ignoreFetchAbort` lets that load answer those
  // callers instead, without keeping its result: a load started after an invalidation reads afresh.
  const cacheOptions = { max, ttl, ttlResolution: 0, perf: { now }, ignoreFetchAbort: true };

  const folderCache = new LRUCache<string, FolderEntry, CallOptions | undefined>({
    ...cacheOptions,
    fetchMethod: async (login, _stale, { context }) => {
      const list = await client.readUserFolders({ login }, context);
      return { list, byId: new Map(list.map((folder) => [folder.id, folder])), loadedAt: now() };
    },
  });
  const itemCache = new LRUCache<string, ReadonlyMap<number, number>, CallOptions | undefined>({
    ...cacheOptions,
    fetchMethod: async (login, _stale, { context }) => {
      const items = await client.readUserItems({ login }, context);
      // Only ids and folder ids are kept: the passwords in this answer are dropped here.
      return new Map(items.map((item) => [item.id, item.folderId]));
    },
  });

  async function folderEntry(login: string, callOptions?: CallOptions): Promise<FolderEntry> {
    return (await folderCache.fetch(login, { context: callOptions }))!;
  }
  async function itemsOf(login: string, callOptions?: CallOptions): Promise<ReadonlyMap<number, number>> {
    if (itemList === false) return NO_ITEMS;
    return (await itemCache.fetch(login, { context: callOptions }))!;
  }

  function rightIn(entry: FolderEntry, folderId: number | undefined): AccessType | undefined {
    return folderId === undefined ? undefined : entry.byId.get(folderId)?.accessType;
  }

  /** Decides one permission on one item, reading the item list only when the mode needs it. */
  async function allows(
    login: string,
    ref: ItemRef | number,
    permission: Permission,
    callOptions?: CallOptions,
  ): Promise<boolean> {
    const item = typeof ref === 'number' ? { id: ref } : ref;
    const entry = await folderEntry(login, callOptions);
    if (itemList !== true && permissionsOf(rightIn(entry, item.folderId))[permission]) return true;
    if (itemList === false) return false;
    const items = await itemsOf(login, callOptions);
    if (permission === 'read' && items.has(item.id)) return true;
    // The user's own item list is the authority on where an item lives; a caller's folderId is
    // only used for items that list does not name.
    return permissionsOf(rightIn(entry, items.get(item.id) ?? item.folderId))[permission];
  }

  return {
    async load(login, callOptions) {
      const [entry, items] = await Promise.all([
        folderEntry(login, callOptions),
        itemsOf(login, callOptions),
      ]);
      return { login, folders: entry.byId, items, loadedAt: entry.loadedAt };
    },
    async folders(login, callOptions) {
      return [...(await folderEntry(login, callOptions)).list];
    },
    async rightOn(login, folderId, callOptions) {
      return permissionsOf(rightIn(await folderEntry(login, callOptions), folderId));
    },
    canRead: (login, ref, callOptions) => allows(login, ref, 'read', callOptions),
    async canAdd(login, folderId, callOptions) {
      return permissionsOf(rightIn(await folderEntry(login, callOptions), folderId)).add;
    },
    canWrite: (login, ref, callOptions) => allows(login, ref, 'edit', callOptions),
    canDelete: (login, ref, callOptions) => allows(login, ref, 'delete', callOptions),
    async filterReadable(login, refs, callOptions) {
      const entry = await folderEntry(login, callOptions);
      const byFolder = (ref: ItemRef) => permissionsOf(rightIn(entry, ref.folderId)).read;
      if (itemList === false) return refs.filter(byFolder);
      if (itemList === 'fallback' && refs.every(byFolder)) return [...refs];
      const items = await itemsOf(login, callOptions);
      return refs.filter(
        (ref) =>
          items.has(ref.id) ||
          (itemList === 'fallback' && byFolder(ref)) ||
          permissionsOf(rightIn(entry, items.get(ref.id) ?? ref.folderId)).read,
      );
    },
    invalidate(login) {
      if (login === undefined) {
        folderCache.clear();
        itemCache.clear();
      } else {
        folderCache.delete(login);
        itemCache.delete(login);
      }
    },
  };
}
