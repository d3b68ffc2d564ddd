import { createVaultClient, type VaultClient } from '@vaultline/protocol';
import type { ConnectArgs } from '../../src/vaultline.ts';
import type { Fixture, SeededItem, TeamPass3Fixture } from './fixture.ts';

/**
 * A server the shared tests run against, through the same extension code: the vault server (keys
 * bound to users), the TeamPass replay server (one shared key, TeamPass 2's search rules), or the
 * TeamPass 3 fake (each user signs in with a password and their API key). All are seeded alike.
 */
export interface Target {
  /** Put in the describe titles. */
  title: string;
  url: string;
  /** The connection names acting for alice and bob. */
  alice: string;
  bob: string;
  /** What connecting a user takes (the connect command's arguments). */
  connectArgs(login: 'alice' | 'bob'): ConnectArgs;
  /** A client that may read and write everything: for setting up and checking what the tests did. */
  client(): VaultClient;
  items: { web: SeededItem; ci: SeededItem; db: SeededItem; stripe: SeededItem };
  folders: { infra: number; databases: number; payments: number };
  attachment: { itemId: number; name: string; text: string } | undefined;
  /**
   * A key that acts for nobody in particular and may read everything (the legacy API): the view
   * names the login it acts for. `undefined` where each user signs in (TeamPass 3).
   */
  sharedKey: string | undefined;
  /** The request log's name for a search request (`findItems`; TeamPass 3's own `searchItems`). */
  searchEndpoint: string;
  /** The request log's name for a read of folders' items (`readFolders`; TeamPass 3's `itemsInFolders`). */
  folderRead: string;
  /**
   * How the request log names reads: `itemRead(id)` matches a read of items that names `id`,
   * `itemReadAlone(id)` one that names it alone; `folderRights` reads the user's folder rights;
   * `everyItem` reads every item of the user, passwords included (`undefined` where no single
   * request does: TeamPass 3 reads folders page by page, as the tree does).
   */
  requestLog: {
    itemRead(id: number): RegExp;
    itemReadAlone(id: number): RegExp;
    folderRights: string;
    everyItem: string | undefined;
  };
}

/** The legacy API's names in the request log. */
const LEGACY_LOG: Target['requestLog'] = {
  itemRead: (id) => new RegExp(` readItems .*/read/items/.*\\b${id}\\b`),
  itemReadAlone: (id) => new RegExp(`/read/items/${id}(\\?|$)`),
  folderRights: 'readUserFolders',
  everyItem: 'readUserItems',
};

/** Clients made for checks, one per target: a TeamPass 3 client signs in once, not per test. */
const clients = new Map<string, VaultClient>();

function memo(key: string, make: () => VaultClient): VaultClient {
  let client = clients.get(key);
  if (!client) {
    client = make();
    clients.set(key, client);
  }
  return client;
}

export function vaultTarget(fixture: Fixture): Target {
  return {
    title: 'the vault server',
    url: fixture.url,
    alice: 'alice',
    bob: 'bob',
    connectArgs: (login) => ({ name: login, url: fixture.url, login, apiKey: fixture.keys[login] }),
    client: () => memo('vault', () => createVaultClient({ baseUrl: fixture.url, auth: fixture.keys.admin })),
    items: fixture.items,
    folders: fixture.folders,
    attachment: fixture.attachment,
    sharedKey: fixture.keys.admin,
    searchEndpoint: 'findItems',
    folderRead: 'readFolders',
    requestLog: LEGACY_LOG,
  };
}

export function teampassTarget(fixture: Fixture): Target {
  const { teampass } = fixture;
  return {
    title: 'the TeamPass replay server',
    url: teampass.url,
    alice: 'tp-alice',
    bob: 'tp-bob',
    connectArgs: (login) => ({ name: `tp-${login}`, url: teampass.url, login, apiKey: teampass.key }),
    client: () => memo('teampass', () => createVaultClient({ baseUrl: teampass.url, auth: teampass.key })),
    items: teampass.items,
    folders: teampass.folders,
    attachment: teampass.attachment,
    sharedKey: teampass.key,
    searchEndpoint: 'findItems',
    folderRead: 'readFolders',
    requestLog: LEGACY_LOG,
  };
}

export function teampass3Target(fixture: Fixture): Target {
  const { teampass3 } = fixture;
  return {
    title: 'the TeamPass 3 fake',
    url: teampass3.url,
    alice: 'tp3-alice',
    bob: 'tp3-bob',
    connectArgs: (login) => ({
      name: `tp3-${login}`,
      url: teampass3.url,
      login,
      password: teampass3.users[login].password,
      apiKey: teampass3.users[login].apiKey,
    }),
    client: () => memo('teampass3', () => teampass3Client(teampass3, 'admin')),
    items: teampass3.items,
    folders: teampass3.folders,
    attachment: undefined,
    sharedKey: undefined,
    searchEndpoint: 'searchItems',
    folderRead: 'itemsInFolders',
    requestLog: {
      itemRead: (id) => new RegExp(` getItem .*/item/get\\?id=${id}(&|$)`),
      itemReadAlone: (id) => new RegExp(`/item/get\\?id=${id}(&|$)`),
      folderRights: 'writableFolders',
      everyItem: undefined,
    },
  };
}

/** A client of the TeamPass 3 fake signed in as one of its users (the tests' own, not the extension's). */
export function teampass3Client(
  teampass3: TeamPass3Fixture,
  login: keyof TeamPass3Fixture['users'],
): VaultClient {
  const user = teampass3.users[login];
  return createVaultClient({
    baseUrl: teampass3.url,
    auth: { login: user.login, password: user.password, apiKey: user.apiKey },
    dialect: 'teampass3',
  });
}

/**
 * Drives the TeamPass 3 fake through its control API (it runs in the harness's process): sign-ins
 * counted, its clock, a user's API permissions, settings, what it stores.
 */
export async function teampass3Control<T = unknown>(
  teampass3: TeamPass3Fixture,
  op: string,
  ...args: unknown[]
): Promise<T> {
  const response = await fetch(teampass3.controlUrl, {
    method: 'POST',
    body: JSON.stringify({ op, args }),
  });
  const body = (await response.json()) as { result?: T; error?: string };
  if (!response.ok) throw new Error(`control ${op}: ${body.error}`);
  return body.result as T;
}
