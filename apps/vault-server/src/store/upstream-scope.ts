/**
 * The one place a machine key's scope is enforced in upstream mode: a rule per operation of the
 * endpoint table, applied around the account's wire client. A row added to the table without a
 * rule here fails to compile ({@link SCOPE_RULES}'s type) and fails the test that walks the table.
 * Outside the scope, the answer is the one for what does not exist; a write never reaches past it.
 *
 * @module
 */

import { type Folder, type Item, type OtpCode, permissionsOf } from '@vaultline/protocol';
import type { EndpointInput, EndpointName, EndpointOutput, WireClient } from '@vaultline/protocol/wire';
import { MAX_LOGIN_LENGTH } from '../constants.ts';
import { VaultServerError } from '../errors.ts';
import type { UpstreamGrant } from './access.ts';
import { invalid, notFound, refused } from './errors.ts';
import { checkText } from './text-rules.ts';
import type { UpstreamAccount } from './upstream-accounts.ts';
import { type ItemPlaces, readItemsWithin } from './upstream-reads.ts';

/** The folders a key reaches: `all` (every folder the account may reach) or these. */
export type Scope = 'all' | ReadonlySet<number>;

/** What a rule works with: the account's client as given, and the key's resolved scope. */
export interface ScopeContext {
  readonly client: WireClient;
  readonly account: UpstreamAccount;
  readonly grant: UpstreamGrant;
  readonly scope: Scope;
  /** The account's folder tree (briefly kept). */
  tree(): Promise<Folder[]>;
  /** Where the account's items were last seen. */
  readonly places: ItemPlaces;
}

/** An answer cut to the scope, and what the audit names: what was served, and what was not and why. */
export interface Scoped<T> {
  readonly value: T;
  readonly target: string;
  /** A write of several things: one audit record each. */
  readonly each?: readonly string[];
}

/** What a rule answers for operation `K`: the wire client's output (read/otp: its code). */
export type RuleOutput<K extends EndpointName> = K extends 'readOtp' ? OtpCode : EndpointOutput<K>;

/** The scope rule of one operation. */
export type ScopeRule<K extends EndpointName> =
  /** Sent upstream only within the scope; `write` needs a key that may write. */
  | {
      readonly access: 'read' | 'write';
      run(ctx: ScopeContext, input: EndpointInput<K>): Promise<Scoped<RuleOutput<K>>>;
    }
  /** Never sent upstream: answered 501 (the scope of what it names cannot be checked, or the upstream lacks it). */
  | { readonly access: 'unsupported'; readonly message: string }
  /** Answered by the server itself; reads nothing of the vault. */
  | { readonly access: 'local' };

export const inScope = (scope: Scope, folderId: number): boolean => scope === 'all' || scope.has(folderId);

const folderMissing = (id: number) => notFound(`Folder ID does not exist: ${id}.`, 'unknown_folder');
const unsupported = (message: string) => new VaultServerError('unsupported', message, 501);

/** `what 1,2 (outside the scope: 3; missing: 4)`: the audit's words for a read. */
function readTarget(
  what: string,
  served: readonly number[],
  outside: readonly number[],
  missing: readonly number[] = [],
  unseen: readonly number[] = [],
) {
  const notes = [
    ...(outside.length > 0 ? [`outside the scope: ${outside.join(',')}`] : []),
    ...(missing.length > 0 ? [`missing: ${missing.join(',')}`] : []),
    ...(unseen.length > 0 ? [`outside the scope or missing: ${unseen.join(',')}`] : []),
  ];
  return `${what} ${served.join(',') || '-'}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
}

/** The items with these ids inside the scope; any other is "No item with id", as for one that does not exist. */
async function itemsInScope(ctx: ScopeContext, ids: readonly number[]): Promise<void> {
  const found = new Map(
    (await ctx.client.readItems({ ids: [...new Set(ids)] })).map((item) => [item.id, item]),
  );
  for (const id of ids) {
    const item = found.get(id);
    if (!item || !inScope(ctx.scope, item.folderId)) throw notFound(`No item with id ${id}.`);
  }
}

/** The folder's subtree in the account's tree, itself included. */
function subtreeOf(folders: readonly Folder[], id: number): number[] {
  const children = new Map<number, number[]>();
  for (const folder of folders) {
    const parent = folder.parentId ?? 0;
    children.set(parent, [...(children.get(parent) ?? []), folder.id]);
  }
  const found = [id];
  for (let at = 0; at < found.length; at++) found.push(...(children.get(found[at]!) ?? []));
  return found;
}

/** The login asked for, where the upstream lets the account read it (the core's `otherUsers`). */
async function loginOf(ctx: ScopeContext, text: string): Promise<string> {
  const login = checkText(text, 'the login', MAX_LOGIN_LENGTH);
  // TeamPass 3 acts as the signed-in user only; TeamPass 2's key reads any user's.
  if (login !== ctx.account.login && !(await ctx.client.capabilities()).otherUsers) {
    throw unsupported(
      `This server acts as one TeamPass 3 account; read/userpw and read/userfolders answer for ${JSON.stringify(ctx.account.login)} only.`,
    );
  }
  return login;
}

/** Reads of items in folders (read/folder, find/item): only the folders in scope are asked. */
function folderReadTarget(scope: Scope, asked: readonly number[]) {
  const unique = [...new Set(asked)];
  const wanted = unique.filter((id) => inScope(scope, id));
  return { wanted, outside: unique.filter((id) => !inScope(scope, id)) };
}

const cutItems = <T extends Item>(scope: Scope, items: readonly T[]) =>
  items.filter((item) => inScope(scope, item.folderId));

/** Every operation of the endpoint table, and how the scope applies to it. */
export const SCOPE_RULES: { readonly [K in EndpointName]: ScopeRule<K> } = {
  addItem: {
    access: 'write',
    async run(ctx, { item }) {
      if (!inScope(ctx.scope, item.folderId)) throw folderMissing(item.folderId);
      const value = await ctx.client.addItem({ item });
      return { value, target: `item ${value.id}` };
    },
  },
  updateItem: {
    access: 'write',
    async run(ctx, { id, item }) {
      await itemsInScope(ctx, [id]);
      if (!inScope(ctx.scope, item.folderId)) throw folderMissing(item.folderId);
      return { value: await ctx.client.updateItem({ id, item }), target: `item ${id}` };
    },
  },
  deleteItems: {
    access: 'write',
    async run(ctx, { ids }) {
      await itemsInScope(ctx, ids);
      return {
        value: await ctx.client.deleteItems({ ids }),
        target: `items ${ids.join(',')}`,
        each: ids.map((id) => `item ${id}`),
      };
    },
  },
  addFolder: {
    access: 'write',
    async run(ctx, { folder }) {
      const parentId = folder.parentId ?? 0;
      const parentMissing = () => notFound(`Parent folder does not exist: ${parentId}.`, 'unknown_folder');
      if (parentId === 0 ? ctx.scope !== 'all' : !inScope(ctx.scope, parentId)) throw parentMissing();
      // The folder made must be one the key reaches: under a folder of the scope with its subfolders.
      if (ctx.scope !== 'all' && !ctx.grant.subfolders)
        throw refused(
          'A folder this key creates would be outside its scope: only a key with --subfolders (or --all-folders) may create folders.',
        );
      if (parentId !== 0) {
        // TeamPass 2 stores a folder under a missing parent as an orphan that breaks later folder
        // writes, and cannot say whether a folder exists: never send it one.
        if (ctx.account.dialect !== 'teampass3')
          throw refused(
            'TeamPass 2 cannot tell whether the parent folder exists, and keeps a folder made under a missing one: create subfolders in TeamPass itself.',
          );
        if (!(await ctx.tree()).some((known) => known.id === parentId)) throw parentMissing();
      }
      const value = await ctx.client.addFolder({ folder });
      return { value, target: `folder ${value.id}` };
    },
  },
  updateFolder: {
    access: 'write',
    async run(ctx, { id, folder }) {
      if (!inScope(ctx.scope, id)) throw folderMissing(id);
      return { value: await ctx.client.updateFolder({ id, folder }), target: `folder ${id}` };
    },
  },
  deleteFolders: {
    access: 'write',
    async run(ctx, { ids }) {
      for (const id of ids) if (!inScope(ctx.scope, id)) throw folderMissing(id);
      if (ctx.scope !== 'all') {
        // TeamPass deletes a folder's whole subtree: every folder of it must be in the scope.
        if (ctx.account.dialect !== 'teampass3')
          throw refused(
            'TeamPass 2 does not say which folders lie under this one, and deletes them with it: only an --all-folders key may delete folders there.',
          );
        const tree = await ctx.tree();
        for (const id of ids) {
          const outside = subtreeOf(tree, id).filter((sub) => !inScope(ctx.scope, sub));
          if (outside.length > 0)
            throw refused(
              `Folder ${id} has subfolders outside this key's scope, which TeamPass would delete with it.`,
            );
        }
      }
      return {
        value: await ctx.client.deleteFolders({ ids }),
        target: `folders ${ids.join(',')}`,
        each: ids.map((id) => `folder ${id}`),
      };
    },
  },
  addFile: {
    access: 'unsupported',
    message: 'Attachments cannot be uploaded through a server in upstream mode.',
  },
  readFolders: {
    access: 'read',
    async run(ctx, { ids }) {
      const { wanted, outside } = folderReadTarget(ctx.scope, ids);
      const read = wanted.length === 0 ? [] : await ctx.client.readFolders({ ids: wanted });
      ctx.places.learn(read);
      const found = cutItems(ctx.scope, read);
      return {
        value: found,
        target: `${readTarget('folders', wanted, outside)}: items ${found.map((item) => item.id).join(',') || '-'}`,
      };
    },
  },
  readItems: {
    access: 'read',
    async run(ctx, { ids }) {
      const unique = [...new Set(ids)];
      const { items: found, byFolder } = await readItemsWithin(ctx.client, unique, ctx.scope, ctx.places);
      const served = cutItems(ctx.scope, found).sort((a, b) => a.id - b.id);
      const outside = found.filter((item) => !inScope(ctx.scope, item.folderId)).map((item) => item.id);
      const known = new Set(found.map((item) => item.id));
      const missing = unique.filter((id) => !known.has(id));
      const servedIds = served.map((item) => item.id);
      // Read by folder: an id not served is outside the scope or missing, and nothing tells which.
      const target = byFolder
        ? readTarget('items', servedIds, [], [], missing)
        : readTarget('items', servedIds, outside, missing);
      return { value: served, target };
    },
  },
  readUserItems: {
    access: 'read',
    async run(ctx, { login }) {
      const found = await ctx.client.readUserItems({ login: await loginOf(ctx, login) });
      return { value: cutItems(ctx.scope, found), target: `user ${login}` };
    },
  },
  readUserFolders: {
    access: 'read',
    async run(ctx, { login }) {
      const found = await ctx.client.readUserFolders({ login: await loginOf(ctx, login) });
      // Rights as the key may use them: a read-only key's folders are read-only.
      const value = found
        .filter((folder) => inScope(ctx.scope, folder.id))
        .map((folder) =>
          ctx.grant.write || !permissionsOf(folder.accessType).read
            ? folder
            : { ...folder, accessType: 'R' as const },
        );
      return { value, target: `user ${login}` };
    },
  },
  listFiles: {
    access: 'read',
    async run(ctx, { itemId }) {
      await itemsInScope(ctx, [itemId]);
      return { value: await ctx.client.listFiles({ itemId }), target: `item ${itemId}` };
    },
  },
  // A download names no item, so its scope cannot be checked before its bytes are read.
  downloadFile: {
    access: 'unsupported',
    message: 'Attachments cannot be downloaded through a server in upstream mode.',
  },
  findItems: {
    access: 'read',
    async run(ctx, { folderIds, query }) {
      const { wanted, outside } = folderReadTarget(ctx.scope, folderIds);
      const found =
        wanted.length === 0
          ? []
          : cutItems(ctx.scope, await ctx.client.findItems({ folderIds: wanted, query }));
      return {
        value: found,
        target: `${readTarget('folders', wanted, outside)}: items ${found.map((item) => item.id).join(',') || '-'}`,
      };
    },
  },
  // Never cached: a code turns over every period. The scope is checked before the code is read.
  readOtp: {
    access: 'read',
    async run(ctx, { id }) {
      await itemsInScope(ctx, [id]);
      return { value: await ctx.client.readOtp({ id }), target: `item ${id}` };
    },
  },
  generatePassword: { access: 'local' },
};

/**
 * Refuses an operation the upstream store never sends (its rule says why).
 *
 * @param name The operation.
 * @returns The error to throw.
 */
export function notForwarded(name: EndpointName): VaultServerError {
  const rule = SCOPE_RULES[name];
  return unsupported(rule.access === 'unsupported' ? rule.message : `${name} is not sent upstream.`);
}

/**
 * A key's scope in the account's folders: its folder ids, with their subfolders when it has them.
 *
 * @param folders The folder ids (resolved paths included).
 * @param subfolders Whether subfolders are in.
 * @param tree The account's folder tree, read only when subfolders are in.
 */
export async function scopeOf(
  folders: readonly number[] | undefined,
  subfolders: boolean,
  tree: () => Promise<Folder[]>,
): Promise<Scope> {
  if (folders === undefined) return 'all';
  const scope = new Set(folders);
  if (!subfolders) return scope;
  const all = await tree();
  for (const id of folders) for (const sub of subtreeOf(all, id)) scope.add(sub);
  return scope;
}

/** A folder path as compared: titles trimmed, joined by `/`. */
const normalPath = (path: string) =>
  path
    .split('/')
    .map((title) => title.trim())
    .join('/');

/**
 * Resolves folder paths (titles from the root down, joined by `/`, as TeamPass shows them) to
 * folder ids in an account's folder tree.
 *
 * @param folders The account's folders.
 * @param paths The paths.
 * @param strict Whether a path that names no folder is an error (at creation) or reaches nothing.
 * @returns The ids.
 */
export function folderIdsOfPaths(
  folders: readonly Folder[],
  paths: readonly string[],
  strict: boolean,
): number[] {
  const byId = new Map(folders.map((folder) => [folder.id, folder]));
  const pathOf = (folder: Folder): string => {
    const titles: string[] = [];
    for (let at: Folder | undefined = folder, depth = 0; at && depth < 100; depth++) {
      titles.unshift(at.title.trim());
      at = byId.get(at.parentId ?? 0);
    }
    return titles.join('/');
  };
  const byPath = new Map<string, number[]>();
  for (const folder of folders) {
    const path = pathOf(folder);
    byPath.set(path, [...(byPath.get(path) ?? []), folder.id]);
  }
  return paths.flatMap((path) => {
    const found = byPath.get(normalPath(path)) ?? [];
    if (strict && found.length === 0)
      throw invalid(
        `No folder at the path ${JSON.stringify(path.slice(0, 60))} among the folders the account may reach.`,
      );
    return found;
  });
}
