/**
 * The client in the domain's words (`createVaultClient`), the same calls against TeamPass 2 (the
 * replay fake, legacy API) and TeamPass 3 (its fake), over HTTP: get one, read many, list a folder
 * page by page, search what the user can see, create, update what changed, delete; the acting
 * login implied; one not-found rule; `await using`.
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isVaultError, type VaultError } from '../src/errors.ts';
import { resolveReferences } from '../src/references/resolve-references.ts';
import { type ReplayServer, startReplayServer } from '../src/testing/teampass-replay-server.ts';
import { startTeamPass3Fake, type TeamPass3Fake } from '../src/testing.ts';
import { actingLoginOf, createVaultClient } from '../src/vault/client.ts';
import type { VaultClient, VaultClientOptions } from '../src/vault/types.ts';
import { wireOf } from '../src/vault/wire-of.ts';

const KEY = 'replayK3yA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5';
const ALICE = { login: 'alice', password: 'Al1ce-pw', apiKey: 'aliceKeyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' };

let teampass2: ReplayServer;
let teampass3: TeamPass3Fake;

beforeAll(async () => {
  teampass2 = await startReplayServer({ apiKey: KEY });
  teampass3 = await startTeamPass3Fake({
    seed: {
      folders: [
        { id: 1, title: 'Team' },
        { id: 2, title: 'Staging', parent: 1 },
        { id: 3, title: 'Hidden' },
      ],
      roles: [{ name: 'Devs', folders: { Team: 'W', 'Team/Staging': 'W' } }],
      users: [{ ...ALICE, roles: ['Devs'] }],
      items: [
        { id: 10, label: 'db', folder: 'Team', password: 'pw-db-seeded', login: 'admin' },
        { id: 11, label: 'cache', folder: 'Team/Staging', password: 'pw-cache-seeded', login: 'admin' },
        { id: 12, label: 'personal', folder: 'Team/Staging', password: 'pw-personal' },
        { id: 13, label: 'secret db', folder: 'Hidden', password: 'hidden-pw' },
      ],
    },
  });
});
afterAll(async () => {
  await teampass2.close();
  await teampass3.close();
});
beforeEach(() => teampass2.reset());

type Server = 'TeamPass 2' | 'TeamPass 3';

function optionsFor(server: Server): VaultClientOptions {
  return server === 'TeamPass 2'
    ? {
        baseUrl: teampass2.url,
        auth: { kind: 'api-key', apiKey: KEY, login: 'alice' },
        retry: { retries: 0 },
      }
    : { baseUrl: teampass3.url, auth: { kind: 'password', ...ALICE }, retry: { retries: 0 } };
}

async function failure(promise: Promise<unknown>): Promise<VaultError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!isVaultError(error)) throw new Error(`Expected a VaultError, received ${String(error)}`);
  return error;
}

describe.each<Server>(['TeamPass 2', 'TeamPass 3'])('the vault client on %s', (server) => {
  let vault: VaultClient;
  beforeAll(() => {
    vault = createVaultClient(optionsFor(server));
  });
  afterAll(() => vault.dispose());

  it('acts as the login it was given, or signed in as', async () => {
    expect((await vault.identity()).login).toBe('alice');
    expect(await actingLoginOf(vault)).toBe('alice');
    expect(await actingLoginOf(vault, { login: 'bob' })).toBe('bob');
  });

  it('still takes the credentials of earlier versions, without a kind', async () => {
    const { auth, ...rest } = optionsFor(server);
    const { kind: _kind, ...kindless } = auth as Exclude<typeof auth, string>;
    await using old = createVaultClient({ ...rest, auth: kindless });
    expect((await old.identity()).login).toBe('alice');
    expect((await old.items.get(10)).label).toBe('db');
  });

  it('gets one item, and says not_found for one that is not there', async () => {
    expect(await vault.items.get(10)).toMatchObject({ id: 10, label: 'db', password: 'pw-db-seeded' });
    const error = await failure(vault.items.get(999));
    expect(error.code).toBe('not_found');
  });

  it('reads many in the order asked, each once, and names the ids that are not there', async () => {
    const items = await vault.items.getMany([11, 10, 11]);
    expect(items.map((item) => item.id)).toEqual([11, 10]);
    const error = await failure(vault.items.getMany([10, 998, 999]));
    expect(error.code).toBe('not_found');
    expect(error.message).toMatch(/998, 999/);
    expect(error.missingIds).toEqual([998, 999]);
    expect(await vault.items.getMany([])).toEqual([]);
  });

  it('lists a folder page by page, and gathers the pages with all()', async () => {
    const pages: number[][] = [];
    for await (const page of vault.items.list([2])) pages.push(page.map((item) => item.id));
    expect(pages.flat().sort()).toEqual([11, 12]);
    expect((await vault.items.list(1).all()).map((item) => item.id)).toEqual([10]);
  });

  it('lists the folders the acting user may access, with the right on each', async () => {
    const folders = await vault.folders.list();
    expect(folders.map((folder) => folder.id)).toEqual(expect.arrayContaining([1, 2]));
    expect(folders.find((folder) => folder.id === 1)?.accessType).toBe('W');
  });

  it('searches what the user can see without being told the folders', async () => {
    const found = await vault.items.search('cache');
    expect(found.items.map((item) => item.id)).toEqual([11]);
    const narrowed = await vault.items.search('db', { folderIds: [2] });
    expect(narrowed.items).toEqual([]);
  });

  it('creates, updates what changed, and deletes', async () => {
    const { id } = await vault.items.create({
      label: 'new one',
      password: 'pw-new',
      folderId: 1,
      login: 'me',
    });
    await vault.items.update(id, { url: 'https://changed.example.com' });
    expect(await vault.items.get(id)).toMatchObject({
      label: 'new one',
      login: 'me',
      password: 'pw-new',
      url: 'https://changed.example.com',
    });
    await vault.items.delete(id);
    expect((await failure(vault.items.get(id))).code).toBe('not_found');
  });

  it('resolves references as the acting user without being told the login', async () => {
    const [byPath] = await resolveReferences(vault, ['vaultline://Team/db/password']);
    expect(byPath).toMatchObject({ ok: true, value: 'pw-db-seeded' });
  });

  it('reaches the wire operations over the same session', async () => {
    const [item] = await wireOf(vault).readItems({ ids: [10] });
    expect(item?.label).toBe('db');
  });
});

describe('the vault client', () => {
  it('says who to act for when a legacy key names nobody, before sending anything', async () => {
    const vault = createVaultClient({ baseUrl: teampass2.url, auth: KEY, legacy: { keyTransport: 'query' } });
    const before = teampass2.requests.length;
    const error = await failure(vault.folders.list());
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(/name the login/);
    expect(teampass2.requests.length).toBe(before);
    expect((await vault.folders.list({ login: 'alice' })).map((folder) => folder.id)).toContain(1);
  });

  it('signs its TeamPass 3 session out at the end of an await using block', async () => {
    const before = teampass3.requests.filter((request) => request.url.endsWith('/auth/logout')).length;
    {
      await using vault = createVaultClient(optionsFor('TeamPass 3'));
      await vault.items.get(10);
    }
    const after = teampass3.requests.filter((request) => request.url.endsWith('/auth/logout')).length;
    expect(after).toBe(before + 1);
  });

  it('refuses an auth that is neither a key nor credentials', () => {
    expect(() => createVaultClient({ baseUrl: teampass2.url, auth: undefined as never })).toThrow(
      /Expected auth to be an API key/,
    );
  });

  it('acts for nobody with a legacy key given no login', async () => {
    await using vault = createVaultClient({ baseUrl: teampass2.url, auth: { kind: 'api-key', apiKey: KEY } });
    expect(await actingLoginOf(vault)).toBeUndefined();
  });

  it('refuses credentials whose fields do not fit their kind, saying no secret', () => {
    const attempt = (auth: unknown) => () =>
      createVaultClient({ baseUrl: teampass3.url, auth: auth as never });
    expect(attempt({ kind: 'password', login: 'alice', password: 'Al1ce-pw' })).toThrow(
      'Expected password credentials (password and API key: login, password, apiKey): missing apiKey.',
    );
    expect(attempt({ kind: 'api-key', apiKey: KEY, password: 'Al1ce-pw' })).toThrow(
      /password has no place in them/,
    );
    expect(attempt({ kind: 'personal-access-token', personalAccessToken: 'tok-123' })).toThrow(
      /missing login/,
    );
    expect(attempt({ kind: 'oauth', token: 't' })).toThrow(
      /Expected auth\.kind to be one of api-key, password/,
    );
    for (const auth of [
      { kind: 'password', login: 'alice', password: 'Al1ce-pw' },
      { kind: 'api-key', apiKey: KEY, password: 'Al1ce-pw' },
      { kind: 'personal-access-token', personalAccessToken: 'tok-123' },
    ]) {
      let error: unknown;
      try {
        attempt(auth)();
      } catch (thrown) {
        error = thrown;
      }
      expect(isVaultError(error, 'invalid_request')).toBe(true);
      const said = JSON.stringify({ message: (error as Error).message, ...(error as object) });
      for (const secret of ['Al1ce-pw', KEY, 'tok-123']) expect(said).not.toContain(secret);
    }
  });
});
