/**
 * The one interface the API's handlers call for the vault's folders, items and attachments, and
 * its local implementation: the server's own database (PGlite or PostgreSQL, `store/*`). The other
 * implementation serves them from a TeamPass server (`upstream-store.ts`). Keys, accounts,
 * audit and limits stay in the server's own database in both.
 *
 * @module
 */

import type { DecodedFolderCreate, ItemValues, ServerFeature } from '@vaultline/protocol/wire';
import { MAX_LOGIN_LENGTH } from '../constants.ts';
import { forbidden } from '../errors.ts';
import type { Principal } from './access.ts';
import type { Actor } from './actor.ts';
import { userIdOf } from './directory.ts';
import * as files from './files.ts';
import * as folders from './folders.ts';
import * as items from './items.ts';
import type { StoreContext } from './store-context.ts';
import { checkText } from './text-rules.ts';

/** A folder's values as update/folder replaces them. */
export interface FolderValues {
  readonly title: string;
  readonly complexityLevel: number;
  readonly renewalPeriod: number;
}

/** Where the bytes of an upload go while it arrives: {@link files.FileUpload}. */
export type FileUpload = files.FileUpload;
/** An attachment to send: {@link files.StoredFile}. */
export type StoredFile = files.StoredFile;
/** What an upload is named and typed: {@link files.FileMeta}. */
export type FileMeta = files.FileMeta;

/**
 * The vault as the handlers see it: every read takes who calls, every write who acts (whose
 * rights apply and whom the audit names). Bodies are in the API's wire form.
 */
export interface VaultStore {
  /** What it can do, as `info/version` reports it: attachments, search, text beyond the BMP. */
  readonly features: readonly ServerFeature[];
  /**
   * Refuses a key this store cannot serve (a key bound to an upstream account on the local
   * store, a key bound to none in upstream mode): called before every operation.
   */
  admit(principal: Principal): void;
  addItem(actor: Actor, values: ItemValues): Promise<number>;
  updateItem(actor: Actor, id: number, values: ItemValues): Promise<void>;
  deleteItems(actor: Actor, ids: readonly number[]): Promise<void>;
  addFolder(actor: Actor, folder: DecodedFolderCreate): Promise<number>;
  updateFolder(actor: Actor, id: number, folder: FolderValues): Promise<void>;
  deleteFolders(actor: Actor, ids: readonly number[]): Promise<void>;
  /** read/folder: the items of the folders; the body, and what the audit names as target. */
  readFolderItems(
    principal: Principal,
    folderIds: readonly number[],
  ): Promise<{ body: unknown; target: string }>;
  /** read/items: the body, and what the audit names as target. */
  readItems(principal: Principal, ids: readonly number[]): Promise<{ body: unknown; target: string }>;
  /** read/userpw: the items of `login`; the body, and what the audit names as target. */
  readUserItems(principal: Principal, login: string): Promise<{ body: unknown; target: string }>;
  /** read/userfolders: the folders of `login`; the body, and what the audit names as target. */
  readUserFolders(principal: Principal, login: string): Promise<{ body: unknown; target: string }>;
  findItems(
    principal: Principal,
    folderIds: readonly number[],
    query: string,
    match: items.FindMatch,
  ): Promise<{ body: unknown; target: string }>;
  /** read/otp: the current one-time code of an item the caller may read; never its secret. */
  readOtp(principal: Principal, id: number): Promise<items.OtpRecord>;
  /** Throws when the caller may not attach files to the item (before a byte of the file is read). */
  checkCanAttach(principal: Principal, itemId: number): Promise<void>;
  startUpload(meta: FileMeta): Promise<FileUpload>;
  listFiles(principal: Principal, itemId: number): Promise<unknown>;
  readFile(principal: Principal, fileId: number): Promise<StoredFile>;
  /** Ends what the store holds open (upstream sessions); the database is closed by the vault. */
  close(): Promise<void>;
}

/**
 * The local store: the vault's folders and items in the server's own database.
 *
 * @param ctx The database, the secret box and the caches.
 * @returns The store.
 */
export function createLocalStore(ctx: StoreContext): VaultStore {
  /** The user whose items or folders are read: a user-bound key reads its own only. */
  const loginTarget = async (principal: Principal, text: string): Promise<number> => {
    const login = checkText(text, 'the login', MAX_LOGIN_LENGTH);
    if (principal.kind === 'user') {
      if (principal.login !== login)
        throw forbidden("A user-bound key may only read its own user's items and folders.");
      return principal.userId;
    }
    return userIdOf(ctx.db, login);
  };
  return {
    features: ['files', 'unicode-search', 'word-search', 'four-byte-text', 'otp'],
    admit(principal) {
      if (principal.kind === 'upstream') {
        throw forbidden(
          'This key is bound to an upstream account, and this server keeps its own vault (no --upstream).',
        );
      }
    },
    addItem: (actor, values) => items.addItem(ctx, actor, values),
    updateItem: (actor, id, values) => items.updateItem(ctx, actor, id, values),
    deleteItems: (actor, ids) => items.deleteItems(ctx, actor, ids),
    addFolder: (actor, folder) => folders.addFolder(ctx, actor, folder),
    updateFolder: (actor, id, folder) => folders.updateFolder(ctx, actor, id, folder),
    deleteFolders: (actor, ids) => folders.deleteFolders(ctx, actor, ids),
    readFolderItems: async (principal, ids) => ({
      body: await items.readFolderItems(ctx, principal, ids),
      target: `folders ${ids.join(',')}`,
    }),
    readItems: async (principal, ids) => ({
      body: await items.readItems(ctx, principal, ids),
      target: `items ${ids.join(',')}`,
    }),
    async readUserItems(principal, login) {
      const userId = await loginTarget(principal, login);
      return { body: await items.readUserItems(ctx, userId), target: `user ${userId}` };
    },
    async readUserFolders(principal, login) {
      const userId = await loginTarget(principal, login);
      return { body: await folders.readUserFolders(ctx, userId), target: `user ${userId}` };
    },
    findItems: async (principal, ids, query, match) => ({
      body: await items.findItems(ctx, principal, ids, query, match),
      target: `folders ${ids.join(',')}`,
    }),
    readOtp: (principal, id) => items.readOtp(ctx, principal, id),
    checkCanAttach: (principal, itemId) => files.checkCanAttach(ctx, principal, itemId),
    startUpload: (meta) => files.startUpload(ctx, meta),
    listFiles: (principal, itemId) => files.listFiles(ctx, principal, itemId),
    readFile: (principal, fileId) => files.readFile(ctx, principal, fileId),
    close: async () => {},
  };
}
