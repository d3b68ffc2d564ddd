/**
 * The upstream store: the {@link VaultStore} that keeps no items of its own and serves the API
 * over a TeamPass 3 (or TeamPass 2) server through `@vaultline/protocol`'s wire client, as the upstream
 * account the calling key is bound to. The account's client is wrapped once, per call, by the scope
 * layer (`upstream-scope.ts`): every operation goes through its rule, and the store itself never
 * holds the client. TeamPass's ids are the ids answered, so a reference names the same item
 * directly and through the server.
 *
 * @module
 */

import type { Folder, FoundItem, Item, ItemWrite } from '@vaultline/protocol';
import type { EndpointInput, EndpointName, ItemValues, ServerFeature } from '@vaultline/protocol/wire';
import type { Queryable } from '@vaultline/store';
import { VaultServerError } from '../errors.ts';
import type { Principal, UpstreamPrincipal } from './access.ts';
import type { Actor } from './actor.ts';
import { pinKeyPaths } from './api-keys.ts';
import { refused } from './errors.ts';
import { fileRecord } from './files.ts';
import { folderRecord } from './folders.ts';
import { checkSearchText } from './items.ts';
import { createUpstreamCache, type UpstreamCache } from './upstream-cache.ts';
import { ItemPlaces } from './upstream-reads.ts';
import {
  folderIdsOfPaths,
  notForwarded,
  type RuleOutput,
  SCOPE_RULES,
  type Scoped,
  scopeOf,
} from './upstream-scope.ts';
import type { UpstreamSessions } from './upstream-sessions.ts';
import type { VaultStore } from './vault-store.ts';
import { auditWrite, auditWrites, type WriteAction } from './write-audit.ts';

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

function upstreamPrincipal(principal: Principal): UpstreamPrincipal {
  if (principal.kind === 'upstream') return principal;
  throw new VaultServerError(
    'forbidden',
    'This server serves an upstream TeamPass: use a key bound to an upstream account (keys create --upstream-account).',
  );
}

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
  const trees = new Map<number, { at: number; folders: Promise<Folder[]> }>();
  const places = new Map<number, ItemPlaces>();
  /** Folder ids of keys made before paths were resolved at creation, once resolved. */
  const pinned = new Map<string, number[]>();

  /**
   * Runs operation `name` as the key's account, through its scope rule: the one way the store
   * reaches the account's client.
   */
  function scoped<K extends EndpointName>(
    principal: Principal,
    name: K,
    input: EndpointInput<K>,
  ): Promise<Scoped<RuleOutput<K>>> {
    const { grant, keyLabel } = upstreamPrincipal(principal);
    const rule = SCOPE_RULES[name] as (typeof SCOPE_RULES)[EndpointName];
    if (rule.access === 'unsupported' || rule.access === 'local') throw notForwarded(name);
    if (rule.access === 'write' && !grant.write)
      throw refused('This key is read-only: it may not write (keys create --write).');
    const run = rule.run as (ctx: unknown, input: EndpointInput<K>) => Promise<Scoped<RuleOutput<K>>>;
    const done = sessions.run(grant.accountId, async (client, account) => {
      const tree = () => {
        const kept = trees.get(account.id);
        if (kept && Date.now() - kept.at < TREE_TTL_MS) return kept.folders;
        const folders = client.readUserFolders({ login: account.login });
        trees.set(account.id, { at: Date.now(), folders });
        folders.catch(() => trees.delete(account.id));
        return folders;
      };
      let folders = grant.folders;
      if (grant.paths.length > 0) {
        let ids = pinned.get(keyLabel);
        if (ids === undefined) {
          const resolved = folderIdsOfPaths(await tree(), grant.paths, false);
          ids = await pinKeyPaths(db, keyLabel, [...(grant.folders ?? []), ...resolved]);
          pinned.set(keyLabel, ids);
        }
        folders = ids;
      }
      const scope = await scopeOf(folders, grant.subfolders, tree);
      const known = places.get(account.id) ?? new ItemPlaces();
      places.set(account.id, known);
      return run({ client, account, grant, scope, tree, places: known }, input);
    });
    if (rule.access !== 'write') return done;
    // Whatever the write did, what was kept of the account may be stale now.
    return done.finally(() => {
      cache.dropAccount(grant.accountId);
      trees.delete(grant.accountId);
    });
  }

  /** A read, through the cache of the key's account and scope (when the cache is on). */
  function cachedRead<K extends EndpointName>(
    principal: Principal,
    name: K,
    input: EndpointInput<K>,
  ): Promise<Scoped<RuleOutput<K>>> {
    const { grant } = upstreamPrincipal(principal);
    const scope = `${grant.folders === undefined ? '*' : [...grant.folders].sort((a, b) => a - b).join(',')}${grant.subfolders ? '+sub' : ''}${grant.write ? '+w' : ''}${JSON.stringify(grant.paths)}`;
    return cache.read(grant.accountId, `${scope}\u0000${name}\u0000${JSON.stringify(input)}`, () =>
      scoped(principal, name, input),
    );
  }

  /** A write, audited with what its rule names once TeamPass accepted it. */
  async function write<K extends EndpointName & WriteAction>(
    actor: Actor,
    name: K,
    input: EndpointInput<K>,
  ): Promise<RuleOutput<K>> {
    const { value, target, each } = await scoped(actor.principal, name, input);
    if (each) await auditWrites(db, actor, name, each);
    else await auditWrite(db, actor, name, target);
    return value;
  }

  const folderValues = (folder: { title: string; complexityLevel: number; renewalPeriod: number }) => ({
    title: folder.title,
    complexityLevel: folder.complexityLevel as never,
    renewalPeriod: folder.renewalPeriod,
  });

  return {
    // What every upstream can: TeamPass 3 has no attachments and searches labels only; TeamPass 2
    // searches restricted text and stores no emoji. Clients read this and adapt. One-time codes
    // where the one upstream has them (TeamPass 3).
    features,
    admit(principal) {
      upstreamPrincipal(principal);
    },
    addItem: async (actor, values) => (await write(actor, 'addItem', { item: itemWrite(values) })).id,
    updateItem: async (actor, id, values) => {
      await write(actor, 'updateItem', { id, item: itemWrite(values) });
    },
    deleteItems: async (actor, ids) => {
      await write(actor, 'deleteItems', { ids: [...ids] });
    },
    addFolder: async (actor, folder) =>
      (
        await write(actor, 'addFolder', {
          folder: { ...folderValues(folder), parentId: folder.parentId, personal: folder.personal },
        })
      ).id,
    updateFolder: async (actor, id, folder) => {
      await write(actor, 'updateFolder', { id, folder: folderValues(folder) });
    },
    deleteFolders: async (actor, ids) => {
      await write(actor, 'deleteFolders', { ids: [...ids] });
    },
    readFolderItems: async (principal, ids) => {
      const { value, target } = await cachedRead(principal, 'readFolders', { ids: [...ids] });
      return { body: value.map(itemRecord), target };
    },
    readItems: async (principal, ids) => {
      const { value, target } = await cachedRead(principal, 'readItems', { ids: [...ids] });
      return { body: value.map(itemRecord), target };
    },
    async readUserItems(principal, login) {
      const { value, target } = await cachedRead(principal, 'readUserItems', { login });
      const body: Record<string, ReturnType<typeof itemRecord>> = {};
      for (const item of value) body[String(item.id)] = itemRecord(item);
      return { body, target };
    },
    async readUserFolders(principal, login) {
      const { value, target } = await cachedRead(principal, 'readUserFolders', { login });
      const body: Record<string, ReturnType<typeof folderRecord>> = {};
      for (const folder of value) body[String(folder.id)] = folderRecord(folder);
      return { body, target };
    },
    findItems: async (principal, folderIds, query) => {
      checkSearchText(query);
      const { value, target } = await cachedRead(principal, 'findItems', {
        folderIds: [...folderIds],
        query,
      });
      return { body: value.map(foundRecord), target };
    },
    readOtp: async (principal, id) => {
      if (!features.includes('otp'))
        throw new VaultServerError(
          'unsupported',
          'One-time codes are not served through a server in upstream mode: the upstream has none.',
          501,
        );
      const { value: otp } = await scoped(principal, 'readOtp', { id });
      return {
        item_id: String(id),
        code: otp.code,
        expires_in: String(otp.secondsLeft),
        period: String(otp.period),
        digits: String(otp.digits),
      };
    },
    async checkCanAttach() {
      throw notForwarded('addFile');
    },
    async startUpload() {
      throw notForwarded('addFile');
    },
    listFiles: async (principal, itemId) => {
      const { value } = await scoped(principal, 'listFiles', { itemId });
      const body: Record<string, ReturnType<typeof fileRecord>> = {};
      for (const file of value) body[String(file.id)] = fileRecord(file);
      return body;
    },
    async readFile() {
      throw notForwarded('downloadFile');
    },
    close: () => sessions.close(),
  };
}
