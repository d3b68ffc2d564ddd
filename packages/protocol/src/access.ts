/**
 * Access checks for adapters that act for a person on a shared key (the Slack bot, the VS Code
 * view, the CLI's references): on TeamPass any key reads and writes everything, so what a person
 * may do is computed from the person's folder rights. Denies by default; never keeps a password.
 *
 * **The least secret that answers.** A decision about an item rests on two reads, and never on the
 * user's item list (`read/userpw`, which carries every password the user may see):
 *
 * 1. the user's folder rights, from `read/userfolders/<login>` (no secrets), cached per user;
 * 2. the item's folder: the `folderId` the caller passes (from a vault read of that item:
 *    read/items, read/folder, find/item), or else the item's own record, read by id
 *    (`read/items/<ids>`: only the items asked about, all of a batch in one call).
 *
 * The folder's right in the one rights table (`permissionsOf`) then answers. The cases where the
 * folder rights alone do not tell, and what the checker decides (denying rather than reading
 * every password):
 *
 * - **An item of a personal folder** (TeamPass 2): TeamPass grants its personal folders outside
 *   the roles, so neither read/userfolders nor read/userpw names them, and read/items answers
 *   their passwords empty (TeamPass cannot decrypt them through its API): **denied**. On the
 *   Vaultline server the owner's personal folders are in read/userfolders (right `W`): allowed to
 *   the owner, denied to everyone else.
 * - **A folder read/userpw covers but read/userfolders leaves out** (TeamPass 2 lists a role's
 *   folder in read/userfolders only when its title is not empty by PHP's `empty()`, i.e. not `""`
 *   or `"0"`, and it still exists; read/userpw lists the items of every role folder): **denied**.
 * - **A right the rights table does not know** (TeamPass's roles screen can store an empty right;
 *   a newer server may send a new code): `none`, **denied** for reading too, although read/userpw
 *   would list the item. Give the role a known right (`R` for read only) to grant it.
 * - **An unknown or deleted id**, or one the key may not read: read/items answers nothing,
 *   **denied**.
 * - **A caller's folder that is wrong** (stale, or invented): the checker decides on the folder it
 *   is given. Pass a `folderId` only from a vault read of that item; an id that came from a person
 *   or a payload goes without one, and the item is read.
 *
 * TeamPass's per-user folder grants and bans and its per-item role restrictions are not in its
 * API (neither read answers them), so they are not checked here either, as before.
 *
 * Concurrent loads of one user share one request; `invalidate` (or the user's eviction from the
 * cache) during a load never fails the callers waiting for it: they get that load's answer, which
 * is not kept, and the next caller reads again.
 *
 * @see ../../../docs/teampass.md
 * @module
 */

import { LRUCache } from 'lru-cache';
import type { Folder } from './legacy/schemas.ts';
import { type AccessType, type Permissions, permissionsOf, type RightDefinition } from './rights.ts';
import type { RequestOptions, VaultFolders, VaultItems } from './vault/types.ts';

/**
 * What the checker reads of a vault: a login's folders (`folders.list({ login })`, no secrets) and
 * items by id (`items.getMany`). A `VaultClient` is one; a wire client held by hand becomes one
 * with `vaultClientOf` (`@vaultline/protocol/wire`).
 */
export interface AccessSource {
  /** The folders a login may access. */
  readonly folders: Pick<VaultFolders, 'list'>;
  /** Items by id. */
  readonly items: Pick<VaultItems, 'getMany'>;
}

/** What the checker keeps of one user: the folder records, no passwords. */
export interface UserAccess {
  /** The vault login. */
  readonly login: string;
  /** The folders the user may access, by id, in the vault's order: whole records (the tree shows them). */
  readonly folders: ReadonlyMap<number, Folder>;
  /** When the folders were read, in ms since the epoch (by the checker's clock). */
  readonly loadedAt: number;
}

/** A reference to an item: its id, and its folder when a vault read of the item gave it. */
export interface ItemRef {
  /** The item id. */
  id: number;
  /**
   * The folder that holds it, from a vault read of this item (read/items, read/folder,
   * find/item). Decided on as given; when absent, the checker reads the item (`read/items/<id>`)
   * for its folder.
   */
  folderId?: number | undefined;
}

/** Options of {@link createAccessChecker}. */
export interface AccessCheckerOptions {
  /** How long a user's folder rights are kept, in ms (inclusive). Default 30 000. */
  ttlMs?: number | undefined;
  /** How many users' rights are kept at most (least recently used go first). Default 1000. */
  maxUsers?: number | undefined;
  /** The clock, for tests. */
  now?: (() => number) | undefined;
}

/** Answers what a vault user may do with an item. */
export interface AccessChecker {
  /**
   * Reads (or returns the cached) folder rights of a user (read/userfolders, no passwords).
   *
   * @param login The vault login.
   * @returns The user's folders.
   */
  load(login: string, options?: RequestOptions): Promise<UserAccess>;
  /**
   * The folders a user may access, whole records in the vault's order (read/userfolders, no
   * passwords): what a tree shows.
   *
   * @param login The vault login.
   * @returns The folders.
   */
  folders(login: string, options?: RequestOptions): Promise<Folder[]>;
  /**
   * The user's right on a folder (`none` for a folder they cannot access), with what it allows
   * and its words ("read only").
   *
   * @param login The vault login.
   * @param folderId The folder.
   * @returns The row of the rights table.
   */
  rightOn(login: string, folderId: number, options?: RequestOptions): Promise<RightDefinition>;
  /**
   * Tells whether a user may read an item: its folder (given, or read with the item) is among
   * the user's folders with a right that allows reading. Unknown items are denied.
   *
   * @param login The vault login.
   * @param item The item: an id, or an id and the folder a vault read gave.
   * @returns Whether the user may read it.
   */
  canRead(login: string, item: ItemRef | number, options?: RequestOptions): Promise<boolean>;
  /**
   * Tells whether a user may add an item to a folder (the core's rights table: `W`, `ND`, `NE`,
   * `NDNE`).
   *
   * @param login The vault login.
   * @param folderId The folder.
   * @returns Whether the user may add items there.
   */
  canAdd(login: string, folderId: number, options?: RequestOptions): Promise<boolean>;
  /**
   * Tells whether a user may edit an item: its folder's right allows editing (`W`, `ND`).
   *
   * @param login The vault login.
   * @param item The item.
   * @returns Whether the user may edit it.
   */
  canWrite(login: string, item: ItemRef | number, options?: RequestOptions): Promise<boolean>;
  /**
   * Tells whether a user may delete an item: its folder's right allows deleting (`W`, `NE`).
   *
   * @param login The vault login.
   * @param item The item.
   * @returns Whether the user may delete it.
   */
  canDelete(login: string, item: ItemRef | number, options?: RequestOptions): Promise<boolean>;
  /**
   * Keeps only the items a user may read. Items without a folder are read in one read/items call.
   *
   * @param login The vault login.
   * @param items The items.
   * @returns The readable ones, in order.
   */
  filterReadable<T extends ItemRef>(
    login: string,
    items: readonly T[],
    options?: RequestOptions,
  ): Promise<T[]>;
  /**
   * Forgets cached rights: of one user, or of everyone. A load already in flight still answers
   * the calls waiting for it; calls made after this read the rights afresh.
   *
   * @param login The vault login; all when absent.
   */
  invalidate(login?: string): void;
}

type Permission = keyof Permissions;

const PERMISSIONS: readonly Permission[] = ['read', 'add', 'edit', 'delete'];

interface FolderEntry {
  readonly list: Folder[];
  readonly byId: ReadonlyMap<number, Folder>;
  /** The permissions some folder grants: with none of one, no item needs a read to decide it. */
  readonly anywhere: ReadonlySet<Permission>;
  readonly loadedAt: number;
}

/**
 * Creates an access checker over a client.
 *
 * @param client The vault client (usually on a key that can read every user).
 * @param options The cache settings.
 * @returns The checker.
 * @example
 * ```ts
 * const access = createAccessChecker(vault);
 * const tree = await access.folders('alice');
 * if (await access.canWrite('alice', { id: 42, folderId: 3 })) await vault.updateItemFields(42, { url });
 * ```
 */
export function createAccessChecker(client: AccessSource, options: AccessCheckerOptions = {}): AccessChecker {
  const ttl = options.ttlMs ?? 30_000;
  const max = options.maxUsers ?? 1000;
  const now = options.now ?? Date.now;

  const folderCache = new LRUCache<string, FolderEntry, RequestOptions | undefined>({
    max,
    ttl,
    ttlResolution: 0,
    perf: { now },
    // An invalidation (or an eviction) while a load is under way must not fail the callers
    // waiting for it (lru-cache rejects them with "deleted"/"evicted" otherwise): they get that
    // load's answer, which is not put back in the cache; the next caller reads again.
    ignoreFetchAbort: true,
    fetchMethod: async (login, _stale, { context }) => {
      const list = await client.folders.list({ login, signal: context?.signal });
      const anywhere = new Set<Permission>();
      for (const folder of list) {
        const granted = permissionsOf(folder.accessType);
        for (const permission of PERMISSIONS) if (granted[permission]) anywhere.add(permission);
      }
      return { list, byId: new Map(list.map((folder) => [folder.id, folder])), anywhere, loadedAt: now() };
    },
  });

  async function folderEntry(login: string, callOptions?: RequestOptions): Promise<FolderEntry> {
    return (await folderCache.fetch(login, { context: callOptions }))!;
  }

  function rightIn(entry: FolderEntry, folderId: number | undefined): AccessType | undefined {
    return folderId === undefined ? undefined : entry.byId.get(folderId)?.accessType;
  }

  /**
   * The folders of items whose caller gave none: one `items.getMany` for all of them (one
   * read/items call, split by the server's limits), what is not there left out. Only ids and folder ids are kept: the rest of the
   * records, passwords included, is dropped here.
   */
  async function foldersOf(
    refs: readonly ItemRef[],
    callOptions?: RequestOptions,
  ): Promise<ReadonlyMap<number, number>> {
    const ids = [...new Set(refs.filter((ref) => ref.folderId === undefined).map((ref) => ref.id))];
    if (ids.length === 0) return new Map();
    const wanted = new Set(ids);
    const records = await client.items.getMany(ids, { signal: callOptions?.signal, missing: 'omit' });
    const found = new Map<number, number>();
    for (const record of records) if (wanted.has(record.id)) found.set(record.id, record.folderId);
    return found;
  }

  function folderIn(ref: ItemRef, read: ReadonlyMap<number, number>): number | undefined {
    return ref.folderId ?? read.get(ref.id);
  }

  /** Decides one permission on one item: the folder rights first, the item only when needed. */
  async function allows(
    login: string,
    ref: ItemRef | number,
    permission: Permission,
    callOptions?: RequestOptions,
  ): Promise<boolean> {
    const item = typeof ref === 'number' ? { id: ref } : ref;
    const entry = await folderEntry(login, callOptions);
    if (!entry.anywhere.has(permission)) return false;
    const read = await foldersOf([item], callOptions);
    return permissionsOf(rightIn(entry, folderIn(item, read)))[permission];
  }

  return {
    async load(login, callOptions) {
      const entry = await folderEntry(login, callOptions);
      return { login, folders: entry.byId, loadedAt: entry.loadedAt };
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
      if (!entry.anywhere.has('read')) return [];
      const read = await foldersOf(refs, callOptions);
      return refs.filter((ref) => permissionsOf(rightIn(entry, folderIn(ref, read))).read);
    },
    invalidate(login) {
      if (login === undefined) folderCache.clear();
      else folderCache.delete(login);
    },
  };
}
