/**
 * The upstream store: the {@link VaultStore} that keeps no items of its own and serves the API
 * over a TeamPass 3 (or TeamPass 2) server through `@vaultline/protocol`'s wire client, as the upstream
 * account the calling key is bound to. Every answer is cut to the key's folder scope: what lies
 * outside it is answered as what does not exist; writes need a key that may write. TeamPass's ids
 * are the ids answered, so a reference names the same item directly and through the server.
 *
 * @module
 */

import type { Folder, FoundItem, Item, ItemWrite } from '@vaultline/protocol';
import type { DecodedFolderCreate, ItemValues, ServerFeature, WireClient } from '@vaultline/protocol/wire';
import type { Queryable } from '@vaultline/store';
import { MAX_LOGIN_LENGTH } from '../constants.ts';
import { VaultServerError } from '../errors.ts';
import type { Principal, UpstreamGrant } from './access.ts';
import type { Actor } from './actor.ts';
import { notFound, refused } from './errors.ts';
import { type FileRecord, fileRecord } from './files.ts';
import { folderRecord } from './folders.ts';
import { checkSearchText } from './items.ts';
import { checkText } from './text-rules.ts';
import type { UpstreamAccount } from './upstream-accounts.ts';
import { createUpstreamCache, type UpstreamCache } from './upstream-cache.ts';
import { readItemsWithin } from './upstream-reads.ts';
import type { UpstreamSessions } from './upstream-sessions.ts';
import type { VaultStore } from './vault-store.ts';
import { auditWrite, auditWrites } from './write-audit.ts';

/** How long an account's folder tree is kept for scopes with subfolders, in ms. */
const TREE_TTL_MS = 10_000;

/** What the upstream store needs. */
export interface UpstreamStoreOptions {
  readonly sessions: UpstreamSessions;
  /** The server's own database: the audit of writes. */
  readonly db: Queryable;
  /** The read cache; none by default. */
  readonly cache?: UpstreamCache | undefined;
  /**
   * What the one upstream adds to `info/version` (told once at start, `upstreamFeatures`): `otp`
   * serves read/otp through the account's client. None by default.
   */
  readonly features?: readonly ServerFeature[] | undefined;
}

/** The folders a key reaches: `all` (every folder the account may reach) or these. */
type Scope = 'all' | ReadonlySet<number>;

const unsupported = (message: string) => new VaultServerError('unsupported', message, 501);

function grantOf(principal: Principal): UpstreamGrant {
  if (principal.kind === 'admin' && principal.upstream !== undefined) return principal.upstream;
  throw new VaultServerError(
    'forbidden',
    'This server serves an upstream TeamPass: use a key bound to an upstream account (keys create --upstream-account).',
  );
}

const inScope = (scope: Scope, folderId: number) => scope === 'all' || scope.has(folderId);

function itemRecord(item: Item) {
  return {
    id: String(item.id),
    label: item.label,
    description: item.description,
    login: item.login,
    email: item.email,
    url: item.url,
    pw: item.password,
    folder_id: String(item.folderId),
    path: item.path.join(' > '),
  };
}

function foundRecord(item: FoundItem) {
  return { ...itemRecord(item), status: item.status };
}

/** The nine values of add/item and update/item as the client writes them. */
function itemWrite(values: ItemValues): ItemWrite {
  return {
    label: values.label,
    password: values.password,
    description: values.description,
    folderId: Number(values.folderId),
    login: values.login,
    email: values.email,
    url: values.url,
    tags: values.tags,
    anyoneCanModify: values.anyoneCanModify === '1',
  };
}

/**
 * Creates the upstream store.
 *
 * @param options The sessions and the audit's database.
 * @returns The store.
 */
export function createUpstreamStore(options: UpstreamStoreOptions): VaultStore {
  const { sessions, db } = options;
  const features = [...(options.features ?? [])];
  const cache = options.cache ?? createUpstreamCache({ ttlMs: 0, staleIfErrorMs: 0 });
  const trees = new Map<number, { at: number; folders: Folder[] }>();

  /** The account's folders (what it may reach), briefly cached for subfolder scopes. */
  async function foldersOf(client: WireClient, account: UpstreamAccount): Promise<Folder[]> {
    const cached = trees.get(account.id);
    if (cached && Date.now() - cached.at < TREE_TTL_MS) return cached.folders;
    const folders = await client.readUserFolders({ login: account.login });
    trees.set(account.id, { at: Date.now(), folders });
    return folders;
  }

  async function scopeOf(grant: UpstreamGrant, client: WireClient, account: UpstreamAccount): Promise<Scope> {
    if (grant.folders === undefined) return 'all';
    const scope = new Set(grant.folders);
    if (!grant.subfolders && grant.paths.length === 0) return scope;
    const folders = await foldersOf(client, account);
    const children = new Map<number, number[]>();
    for (const folder of folders) {
      const parent = folder.parentId ?? 0;
      children.set(parent, [...(children.get(parent) ?? []), folder.id]);
    }
    if (grant.paths.length > 0) {
      // A folder's path: the titles from its root down, joined by "/", as TeamPass shows them.
      const byId = new Map(folders.map((folder) => [folder.id, folder]));
      const pathOf = (folder: Folder): string => {
        const titles: string[] = [];
        for (let at: Folder | undefined = folder, depth = 0; at && depth < 100; depth++) {
          titles.unshift(at.title.trim());
          at = byId.get(at.parentId ?? 0);
        }
        return titles.join('/');
      };
      const wanted = new Set(
        grant.paths.map((path) =>
          path
            .split('/')
            .map((title) => title.trim())
            .join('/'),
        ),
      );
      for (const folder of folders) if (wanted.has(pathOf(folder))) scope.add(folder.id);
    }
    if (!grant.subfolders) return scope;
    const queue = [...scope];
    while (queue.length > 0) {
      for (const child of children.get(queue.pop()!) ?? []) {
        if (!scope.has(child)) {
          scope.add(child);
          queue.push(child);
        }
      }
    }
    return scope;
  }

  /** Runs `work` as the key's account, with its scope. */
  function withScope<T>(
    principal: Principal,
    work: (client: WireClient, scope: Scope, account: UpstreamAccount) => Promise<T>,
  ): Promise<T> {
    const grant = grantOf(principal);
    return sessions.run(grant.accountId, async (client, account) =>
      work(client, await scopeOf(grant, client, account), account),
    );
  }

  /** Runs a write as the actor's account: refused for a read-only key. */
  function writing<T>(
    actor: Actor,
    work: (client: WireClient, scope: Scope, account: UpstreamAccount) => Promise<T>,
  ): Promise<T> {
    const grant = grantOf(actor.principal);
    if (!grant.write) throw refused('This key is read-only: it may not write (keys create --write).');
    // Whatever the write did, what was kept of the account may be stale now.
    return withScope(actor.principal, work).finally(() => cache.dropAccount(grant.accountId));
  }

  /** A read, through the cache of the key's account and scope (when the cache is on). */
  function cachedRead<T>(principal: Principal, what: string, read: () => Promise<T>): Promise<T> {
    const grant = grantOf(principal);
    const scope = `${grant.folders === undefined ? '*' : [...grant.folders].sort((a, b) => a - b).join(',')}${grant.subfolders ? '+sub' : ''}${JSON.stringify(grant.paths)}`;
    return cache.read(grant.accountId, `${scope}\u0000${what}`, read);
  }

  /** The items with these ids inside the scope; any other is "No item with id". */
  async function itemsInScope(client: WireClient, scope: Scope, ids: readonly number[]): Promise<void> {
    const found = new Map(
      (await client.readItems({ ids: [...new Set(ids)] })).map((item) => [item.id, item]),
    );
    for (const id of ids) {
      const item = found.get(id);
      if (!item || !inScope(scope, item.folderId)) throw notFound(`No item with id ${id}.`);
    }
  }

  const folderMissing = (id: number) => notFound(`Folder ID does not exist: ${id}.`, 'unknown_folder');

  /** The login asked for, where the upstream lets the account read it (the core's `otherUsers`). */
  const loginOf = async (client: WireClient, account: UpstreamAccount, text: string) => {
    const login = checkText(text, 'the login', MAX_LOGIN_LENGTH);
    // TeamPass 3 acts as the signed-in user only; TeamPass 2's key reads any user's.
    if (login !== account.login && !(await client.capabilities()).otherUsers) {
      throw unsupported(
        `This server acts as one TeamPass 3 account; read/userpw and read/userfolders answer for ${JSON.stringify(account.login)} only.`,
      );
    }
    return login;
  };

  return {
    // What every upstream can: TeamPass 3 has no attachments and searches labels only; TeamPass 2
    // searches restricted text and stores no emoji. Clients read this and adapt. One-time codes
    // where the one upstream has them (TeamPass 3).
    features,
    admit(principal) {
      grantOf(principal);
    },
    addItem: (actor, values) =>
      writing(actor, async (client, scope) => {
        const folderId = Number(values.folderId);
        if (!inScope(scope, folderId)) throw folderMissing(folderId);
        const { id } = await client.addItem({ item: itemWrite(values) });
        await auditWrite(db, actor, 'addItem', `item ${id}`);
        return id;
      }),
    updateItem: (actor, id, values) =>
      writing(actor, async (client, scope) => {
        await itemsInScope(client, scope, [id]);
        const folderId = Number(values.folderId);
        if (!inScope(scope, folderId)) throw folderMissing(folderId);
        await client.updateItem({ id, item: itemWrite(values) });
        await auditWrite(db, actor, 'updateItem', `item ${id}`);
      }),
    deleteItems: (actor, ids) =>
      writing(actor, async (client, scope) => {
        await itemsInScope(client, scope, ids);
        await client.deleteItems({ ids: [...ids] });
        await auditWrites(
          db,
          actor,
          'deleteItems',
          ids.map((id) => `item ${id}`),
        );
      }),
    addFolder: (actor, folder: DecodedFolderCreate) =>
      writing(actor, async (client, scope, account) => {
        if (folder.parentId === 0 ? scope !== 'all' : !inScope(scope, folder.parentId))
          throw notFound(`Parent folder does not exist: ${folder.parentId}.`, 'unknown_folder');
        const { id } = await client.addFolder({
          folder: {
            title: folder.title,
            complexityLevel: folder.complexityLevel as never,
            parentId: folder.parentId,
            renewalPeriod: folder.renewalPeriod,
            personal: folder.personal,
          },
        });
        trees.delete(account.id);
        await auditWrite(db, actor, 'addFolder', `folder ${id}`);
        return id;
      }),
    updateFolder: (actor, id, folder) =>
      writing(actor, async (client, scope, account) => {
        if (!inScope(scope, id)) throw folderMissing(id);
        await client.updateFolder({
          id,
          folder: {
            title: folder.title,
            complexityLevel: folder.complexityLevel as never,
            renewalPeriod: folder.renewalPeriod,
          },
        });
        trees.delete(account.id);
        await auditWrite(db, actor, 'updateFolder', `folder ${id}`);
      }),
    deleteFolders: (actor, ids) =>
      writing(actor, async (client, scope, account) => {
        for (const id of ids) if (!inScope(scope, id)) throw folderMissing(id);
        await client.deleteFolders({ ids: [...ids] });
        trees.delete(account.id);
        await auditWrites(
          db,
          actor,
          'deleteFolders',
          ids.map((id) => `folder ${id}`),
        );
      }),
    readFolderItems: (principal, folderIds) =>
      cachedRead(principal, `folder ${folderIds.join(';')}`, () =>
        withScope(principal, async (client, scope) => {
          const wanted = [...new Set(folderIds)].filter((id) => inScope(scope, id));
          if (wanted.length === 0) return [];
          const found = await client.readFolders({ ids: wanted });
          return found.filter((item) => inScope(scope, item.folderId)).map(itemRecord);
        }),
      ),
    readItems: (principal, ids) =>
      cachedRead(principal, `items ${ids.join(';')}`, () =>
        withScope(principal, async (client, scope) => {
          const found = await readItemsWithin(client, ids, scope);
          return found
            .filter((item) => inScope(scope, item.folderId))
            .sort((a, b) => a.id - b.id)
            .map(itemRecord);
        }),
      ),
    readUserItems: (principal, login) =>
      cachedRead(principal, `userpw ${login}`, () =>
        withScope(principal, async (client, scope, account) => {
          const found = await client.readUserItems({ login: await loginOf(client, account, login) });
          const body: Record<string, ReturnType<typeof itemRecord>> = {};
          for (const item of found)
            if (inScope(scope, item.folderId)) body[String(item.id)] = itemRecord(item);
          return { body, target: `user ${login}` };
        }),
      ),
    readUserFolders: (principal, login) =>
      cachedRead(principal, `userfolders ${login}`, () =>
        withScope(principal, async (client, scope, account) => {
          const found = await client.readUserFolders({ login: await loginOf(client, account, login) });
          const body: Record<string, ReturnType<typeof folderRecord>> = {};
          for (const folder of found)
            if (inScope(scope, folder.id)) body[String(folder.id)] = folderRecord(folder);
          return { body, target: `user ${login}` };
        }),
      ),
    findItems: (principal, folderIds, query) => {
      checkSearchText(query);
      return cachedRead(principal, `find ${folderIds.join(';')}\u0000${query}`, () =>
        withScope(principal, async (client, scope) => {
          const wanted = [...new Set(folderIds)].filter((id) => inScope(scope, id));
          if (wanted.length === 0) return [];
          const found = await client.findItems({ folderIds: wanted, query });
          return found.filter((item) => inScope(scope, item.folderId)).map(foundRecord);
        }),
      );
    },
    // Never cached: a code turns over every period. The scope is checked before the code is read.
    readOtp: (principal, id) => {
      if (!features.includes('otp'))
        throw unsupported(
          'One-time codes are not served through a server in upstream mode: the upstream has none.',
        );
      return withScope(principal, async (client, scope) => {
        await itemsInScope(client, scope, [id]);
        const otp = await client.readOtp({ id });
        return {
          item_id: String(id),
          code: otp.code,
          expires_in: String(otp.secondsLeft),
          period: String(otp.period),
          digits: String(otp.digits),
        };
      });
    },
    async checkCanAttach() {
      throw unsupported('Attachments cannot be uploaded through a server in upstream mode.');
    },
    async startUpload() {
      throw unsupported('Attachments cannot be uploaded through a server in upstream mode.');
    },
    listFiles: (principal, itemId) =>
      withScope(principal, async (client, scope) => {
        await itemsInScope(client, scope, [itemId]);
        const found = await client.listFiles({ itemId });
        const body: Record<string, FileRecord> = {};
        for (const file of found) body[String(file.id)] = fileRecord(file);
        return body;
      }),
    async readFile() {
      // A download names no item, so its scope cannot be checked before its bytes are read.
      throw unsupported('Attachments cannot be downloaded through a server in upstream mode.');
    },
    close: () => sessions.close(),
  };
}
