/**
 * `createVaultClient`: the client a developer meets, in the domain's words, over the wire client
 * of whichever dialect answers (`create-client.ts`). Each method says what it does for the user;
 * which operations of which dialect carry it out is the wire client's business.
 *
 * One not-found rule: what is named by id (`items.get`, `items.getMany`, `items.update`,
 * `items.delete`, `files.download`) and is not there, or not visible to the user, is `not_found`;
 * what is listed or searched (`items.list`, `items.search`, `folders.list`) is what is there.
 *
 * @module
 */

import type { CallOptions, WireClient } from '../client/types.ts';
import { openWireClient } from '../create-client.ts';
import { VaultError } from '../errors.ts';
import type { Item } from '../legacy/schemas.ts';
import { searchItems } from '../search.ts';
import { wireOptionsOf } from './options.ts';
import type {
  ActingOptions,
  ItemPages,
  VaultClient,
  VaultClientOptions,
  VaultFiles,
  VaultFolders,
  VaultIdentity,
  VaultItems,
} from './types.ts';
import { bindWire } from './wire-of.ts';

/** `Symbol.asyncDispose`, where the runtime has it (Node, current browsers), else its registered stand-in. */
const asyncDispose: typeof Symbol.asyncDispose =
  Symbol.asyncDispose ?? (Symbol.for('Symbol.asyncDispose') as typeof Symbol.asyncDispose);

/**
 * Creates a client of a vault: the Vaultline server, TeamPass 2 (the legacy API) or TeamPass 3.
 * The same methods whichever answers; `capabilities()` says what differs.
 *
 * With `dialect: 'auto'` (the default) one keyless request before the first call tells the
 * dialect, once per client; pass the stored `dialect` to skip it.
 *
 * @param options The server, the credentials (`auth`) and behaviour.
 * @returns The client; `await using` disposes of it.
 * @throws {VaultError} `invalid_request` for a base URL that is not http(s), or credentials that
 *   can sign in to no dialect (or not to the one given).
 * @example
 * ```ts
 * await using vault = createVaultClient({ baseUrl: 'https://vault.example.com', auth: process.env.VAULT_KEY! });
 * const { id } = await vault.items.create({ label: 'db', password: 's3cret', folderId: 1 });
 * for await (const page of vault.items.list(1)) console.log(page.map((item) => item.label));
 * ```
 */
export function createVaultClient(options: VaultClientOptions): VaultClient {
  const settings = wireOptionsOf(options);
  const wire = openWireClient(settings);
  const configuredLogin = settings.login?.trim() || undefined;
  const vault = vaultOver(wire, configuredLogin);
  bindWire(vault, wire);
  return vault;
}

/**
 * The login a call acts for, by the one rule of every app: the login the call names, else the
 * client's (`identity().login`): the signed-in user where the vault signs users in (TeamPass 3),
 * else the credentials' `login` (who a legacy key acts for).
 *
 * @param client The client.
 * @param options The call's options: its `login`, its signal.
 * @returns The login, or `undefined` when there is none (a legacy key given no login).
 * @example
 * ```ts
 * const login = await actingLoginOf(vault);
 * if (login === undefined) throw new Error('Name the login to act for.');
 * ```
 */
export async function actingLoginOf(
  client: Pick<VaultClient, 'identity'>,
  options?: ActingOptions,
): Promise<string | undefined> {
  return options?.login ?? (await client.identity(options)).login;
}

/**
 * The domain client over a wire client.
 *
 * @param wire The wire client.
 * @param configuredLogin The login of the credentials: who a legacy key acts for.
 * @returns The client.
 */
function vaultOver(wire: WireClient, configuredLogin: string | undefined): VaultClient {
  /** Who the client acts as: the signed-in user (TeamPass 3), or the configured login (legacy API). */
  async function identity(options?: CallOptions): Promise<VaultIdentity> {
    const signedIn = await wire.identity(options);
    return { ...signedIn, login: signedIn.login ?? configuredLogin };
  }

  /** Who a call acts for, by {@link actingLoginOf}; an error when nobody. */
  async function actingLogin(options: ActingOptions | undefined, operation: string): Promise<string> {
    const login = await actingLoginOf({ identity }, options);
    if (login === undefined) {
      throw new VaultError(
        'invalid_request',
        `${operation}: the API key acts for nobody in particular; name the login to act for (auth.login, or the call's login option). Nothing was sent.`,
        { endpoint: operation },
      );
    }
    return login;
  }

  const items: VaultItems = {
    get: (id, options) => wire.getItem(id, options),
    async getMany(ids, options) {
      const unique = [...new Set(ids)];
      if (unique.length === 0) return [];
      const read = await wire.readItems({ ids: unique }, options);
      const byId = new Map(read.map((item) => [item.id, item]));
      const missing = unique.filter((id) => !byId.has(id));
      if (missing.length > 0) {
        throw new VaultError(
          'not_found',
          `${missing.length === 1 ? 'Item' : 'Items'} ${missing.join(', ')}: not found, or not visible to this user.`,
          { endpoint: 'readItems', missingIds: missing },
        );
      }
      return unique.map((id) => byId.get(id)!);
    },
    list(folderIds, options) {
      const ids = typeof folderIds === 'number' ? [folderIds] : [...folderIds];
      // Iterating reads a page as the caller asks for it; all() reads the pages a few at a time.
      return pagesOf(wire.itemPages(ids, options), () => wire.readFolders({ ids }, options));
    },
    async search(text, options = {}) {
      const folderIds =
        options.folderIds ??
        (await wire.readUserFolders({ login: await actingLogin(options, 'search') }, options))
          .filter((folder) => folder.accessType !== 'none')
          .map((folder) => folder.id);
      return searchItems(wire, { folderIds, text }, { fallback: options.fallback, signal: options.signal });
    },
    findByUrl: (url, options) => wire.findByUrl({ url }, options),
    async create(item, options) {
      const { id } = await wire.addItem({ item }, options);
      return { id };
    },
    async update(id, changes, options) {
      await wire.updateItemFields(id, changes, options);
    },
    async delete(ids, options) {
      await wire.deleteItems({ ids: typeof ids === 'number' ? [ids] : [...ids] }, options);
    },
    otp: (id, options) => wire.readOtp({ id }, options),
    tags: (options) => wire.readTags(options),
  };

  const folders: VaultFolders = {
    async list(options) {
      return wire.readUserFolders({ login: await actingLogin(options, 'folders.list') }, options);
    },
    async create(folder, options) {
      const { id } = await wire.addFolder({ folder }, options);
      return { id };
    },
    async update(id, changes, options) {
      await wire.updateFolder({ id, folder: changes }, options);
    },
    async delete(ids, options) {
      await wire.deleteFolders({ ids: typeof ids === 'number' ? [ids] : [...ids] }, options);
    },
  };

  const files: VaultFiles = {
    list: (itemId, options) => wire.listFiles({ itemId }, options),
    download: (fileId, options) => wire.downloadFile({ id: fileId }, options),
    async upload(itemId, file, options) {
      const { id } = await wire.addFile({ ...file, itemId }, options);
      return { id };
    },
  };

  const dispose = (options?: { signOut?: boolean | undefined }) => wire.dispose(options);
  return {
    baseUrl: wire.baseUrl,
    redact: wire.redact,
    items,
    folders,
    files,
    capabilities: (options) => wire.capabilities(options),
    identity,
    dispose,
    [asyncDispose]: () => dispose(),
  };
}

/** A folder listing's pages, and `all()` to gather them at once. */
function pagesOf(pages: AsyncIterable<Item[]>, all: () => Promise<Item[]>): ItemPages {
  return { [Symbol.asyncIterator]: () => pages[Symbol.asyncIterator](), all };
}
