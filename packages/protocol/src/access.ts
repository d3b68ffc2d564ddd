/**
 * Access checks for adapters that act for a person on a shared key (the Slack bot, the VS Code
 * view): on TeamPass any key reads and writes everything, so what a person may do is computed from
 * read/userfolders/<login> and read/userpw/<login>. Denies by default; never keeps a password.
 *
 * @module
 */

import type { CallOptions, VaultClient } from './create-client.ts';
import { permissionsOf } from './rights.ts';
import type { Folder } from './schemas.ts';

/** What the checker keeps of one user: folder rights and item → folder, no passwords. */
export interface UserAccess {
  /** The vault login. */
  readonly login: string;
  /** The folders the user may access, by id. */
  readonly folders: ReadonlyMap<
    number,
    Readonly<Pick<Folder, 'id' | 'title' | 'level' | 'accessType' | 'parentId' | 'personal'>>
  >;
  /** The items the user may access: item id → folder id. */
  readonly items: ReadonlyMap<number, number>;
  /** When it was read, in ms since the epoch. */
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
  /** How long a user's rights are kept, in ms. Default 30 000. */
  ttlMs?: number | undefined;
  /**
   * Whether to read the user's item list (read/userpw) as well as their folders. Default true.
   * Without it, decisions rest on folder rights alone and an item is judged by the `folderId` the
   * caller gives (from a read the caller trusts): one request instead of two, and none that carries
   * every password the user may see, which matters at tens of thousands of items.
   */
  itemList?: boolean | undefined;
  /** The clock, for tests. */
  now?: (() => number) | undefined;
}

/** Answers what a vault user may do with an item. */
export interface AccessChecker {
  /**
   * Reads (or returns the cached) rights of a user.
   *
   * @param login The vault login.
   * @returns The user's folders and items.
   */
  load(login: string, options?: CallOptions): Promise<UserAccess>;
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
   * `NDNE`).
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
   * Forgets cached rights: of one user, or of everyone.
   *
   * @param login The vault login; all when absent.
   */
  invalidate(login?: string): void;
}

/**
 * Creates an access checker over a client.
 *
 * @param client The vault client (usually on a key that can read every user).
 * @param options The cache settings.
 * @returns The checker.
 */
export function createAccessChecker(
  client: Pick<VaultClient, 'readUserFolders' | 'readUserItems'>,
  options: AccessCheckerOptions = {},
): AccessChecker {
  const ttlMs = options.ttlMs ?? 30_000;
  const itemList = options.itemList ?? true;
  const now = options.now ?? Date.now;
  const cache = new Map<string, UserAccess>();
  const pending = new Map<string, Promise<UserAccess>>();

  async function fetchAccess(login: string, callOptions?: CallOptions): Promise<UserAccess> {
    const [folders, items] = await Promise.all([
      client.readUserFolders({ login }, callOptions),
      itemList ? client.readUserItems({ login }, callOptions) : [],
    ]);
    const access: UserAccess = {
      login,
      folders: new Map(
        folders.map((folder) => [
          folder.id,
          {
            id: folder.id,
            title: folder.title,
            level: folder.level,
            accessType: folder.accessType,
            parentId: folder.parentId,
            personal: folder.personal,
          },
        ]),
      ),
      // Only ids and folder ids are kept: the passwords in this answer are dropped here.
      items: new Map(items.map((item) => [item.id, item.folderId])),
      loadedAt: now(),
    };
    return access;
  }

  async function load(login: string, callOptions?: CallOptions): Promise<UserAccess> {
    const cached = cache.get(login);
    if (cached && now() - cached.loadedAt < ttlMs) return cached;
    const inFlight = pending.get(login);
    if (inFlight !== undefined) return inFlight;
    const promise = fetchAccess(login, callOptions).then(
      (access) => {
        cache.set(login, access);
        pending.delete(login);
        return access;
      },
      (error: unknown) => {
        pending.delete(login);
        throw error;
      },
    );
    pending.set(login, promise);
    return promise;
  }

  function folderOf(access: UserAccess, item: ItemRef): number | undefined {
    // The user's own item list is the authority on where an item lives; a caller's folderId is
    // only used for items that list does not name.
    return access.items.get(item.id) ?? item.folderId;
  }

  async function right(login: string, ref: ItemRef | number, callOptions?: CallOptions) {
    const item = typeof ref === 'number' ? { id: ref } : ref;
    const access = await load(login, callOptions);
    const folderId = folderOf(access, item);
    const folder = folderId === undefined ? undefined : access.folders.get(folderId);
    return { listed: access.items.has(item.id), right: folder?.accessType };
  }

  return {
    load,
    async canRead(login, ref, callOptions) {
      const { listed, right: folderRight } = await right(login, ref, callOptions);
      return listed || permissionsOf(folderRight).read;
    },
    async canAdd(login, folderId, callOptions) {
      const access = await load(login, callOptions);
      return permissionsOf(access.folders.get(folderId)?.accessType).add;
    },
    async canWrite(login, ref, callOptions) {
      return permissionsOf((await right(login, ref, callOptions)).right).edit;
    },
    async canDelete(login, ref, callOptions) {
      return permissionsOf((await right(login, ref, callOptions)).right).delete;
    },
    async filterReadable(login, items, callOptions) {
      const access = await load(login, callOptions);
      return items.filter((item) => {
        if (access.items.has(item.id)) return true;
        const folderId = folderOf(access, item);
        return folderId !== undefined && permissionsOf(access.folders.get(folderId)?.accessType).read;
      });
    },
    invalidate(login) {
      if (login === undefined) cache.clear();
      else cache.delete(login);
    },
  };
}
