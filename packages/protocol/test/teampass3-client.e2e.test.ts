/**
 * The one `VaultClient` over TeamPass 3, against the TeamPass 3 fake over HTTP: every method of
 * the interface, the rights folded with the API permissions, the access checker, sign-ins counted
 * by the fake, and the bad input the issue names (expired and revoked tokens, a wrong password, a
 * user whose API access is off, a 429 storm, a tree 20 levels deep, 10,000 items across pages,
 * labels full of entities and emoji), with a leak scan over everything reported.
 */

import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAccessChecker } from '../src/access.ts';
import type { WireClient } from '../src/client/types.ts';
import { isVaultError, VaultError } from '../src/errors.ts';
import { normalizeTotp, totpAt } from '../src/testing/teampass3/totp.ts';
import { startTeamPass3Fake, type TeamPass3Fake } from '../src/testing.ts';
import type { RequestEvent } from '../src/transport/transport.ts';
import { vaultClientOf } from '../src/vault/client.ts';
import type { TokenCache, VaultAuth, VaultClientOptions } from '../src/vault/types.ts';
import { createWireClient } from '../src/vault/wire-client.ts';

const ALICE = {
  login: 'alice',
  password: 'Al1ce pass&word=+%20',
  apiKey: 'aliceKeyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
};
const BOB = { login: 'bob', password: 'B0b-pass-2026', apiKey: 'bobKeyBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB' };
const CAROL = { login: 'carol', password: 'C4rol-pass', apiKey: 'carolKeyCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC' };
const TOTP_SECRET = 'JBSWY3DPEHPK3PXP';
const BULK_ITEMS = 10_000;
const DEPTH = 20;
const LEVELS = Array.from({ length: DEPTH }, (_, j) => `Level ${j + 1}`);
// Folder titles go through strip_tags in TeamPass: no tags in this one.
const HOSTILE_FOLDER = `R&D & "quoted" 'single' 🚀 &amp;`;
// Accents and typographic marks TeamPass stores as named entities (`&Auml;`, `&euro;`, `&ldquo;`).
const HOSTILE_LABEL = `Tom & Jerry <b>"x"</b> 'y' 😀🎉 Ärger € “q” – ß`;

let fake: TeamPass3Fake;
const events: RequestEvent[] = [];
const errors: unknown[] = [];
const clients: WireClient[] = [];

beforeAll(async () => {
  let tree: { title: string; children?: unknown[] } = { title: LEVELS.at(-1)! };
  for (let level = DEPTH - 1; level >= 1; level--) tree = { title: `Level ${level}`, children: [tree] };
  fake = await startTeamPass3Fake({
    now: Date.now(),
    seed: {
      folders: [
        { id: 1, title: 'Shared' },
        { id: 2, title: 'DevOnly' },
        { id: 3, title: 'Bulk' },
        { id: 4, title: HOSTILE_FOLDER },
        tree as { title: string },
      ],
      roles: [
        {
          name: 'Devs',
          folders: {
            Shared: 'W',
            DevOnly: 'W',
            Bulk: 'R',
            [HOSTILE_FOLDER]: 'W',
            ...Object.fromEntries(LEVELS.map((_, i) => [LEVELS.slice(0, i + 1).join('/'), 'W' as const])),
          },
        },
        { name: 'Ops', folders: { Shared: 'R' } },
      ],
      users: [
        { ...ALICE, roles: ['Devs'], canCreateRootFolder: true, manager: true },
        { ...BOB, roles: ['Ops'], api: { delete: false } },
        { ...CAROL, roles: ['Devs'] },
      ],
      items: [
        {
          id: 1,
          label: 'shared-db',
          folder: 'Shared',
          password: 'S3cret-DB!',
          login: 'dbadmin',
          url: 'https://db.example.test/login',
          tags: 'db prod',
        },
        {
          id: 2,
          label: 'ci',
          folder: 'DevOnly',
          password: 'ci-token',
          totp: TOTP_SECRET,
          tags: 'secret-tag',
        },
        { id: 3, label: 'deep secret', folder: LEVELS.join('/'), password: 'deep' },
        {
          id: 4,
          label: HOSTILE_LABEL,
          folder: HOSTILE_FOLDER,
          password: '  pw &amp; <é> 🔑  ',
          login: "o'neil & <co>",
        },
        { id: 5, label: '100% sure', folder: 'Shared', password: 'pct' },
        ...Array.from({ length: BULK_ITEMS }, (_, i) => ({
          label: `bulk-${String(i).padStart(5, '0')}`,
          folder: 'Bulk',
          password: `pw-${i}`,
        })),
      ],
    },
  });
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose({ signOut: false }).catch(() => undefined)));
  await fake.close();
});
beforeEach(() => {
  fake.configure({ rateLimitPerMinute: 0, api: true, tokenDurationMinutes: 60 });
  for (const login of ['alice', 'bob', 'carol'])
    fake.updateUser(login, { disabled: false, apiEnabled: true });
  fake.setApiFlags('alice', { create: true, read: true, update: true, delete: true });
  fake.resetCounters();
});
afterEach(() => {
  events.length = 0;
});

function client(overrides: Partial<VaultClientOptions> = {}, credentials: VaultAuth = ALICE): WireClient {
  const created = createWireClient({
    baseUrl: fake.url,
    auth: credentials,
    dialect: 'teampass3',
    retry: { retries: 0 },
    onRequest: (event) => events.push(event),
    ...overrides,
    clock: {
      now: () => fake.clock.now(),
      // Waiting out a 429 moves the fake's clock instead of the test's.
      sleep: async (ms) => fake.clock.advance(ms),
      ...overrides.clock,
    },
  });
  clients.push(created);
  return created;
}

async function failure(promise: Promise<unknown>): Promise<VaultError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  errors.push(error);
  if (!(error instanceof VaultError)) throw new Error(`Expected a VaultError, got ${String(error)}`);
  return error;
}

const requestsTo = (path: string) => fake.requests.filter((r) => r.url.split('?')[0]!.endsWith(path));

function memoryCache(): TokenCache & { stored: string | undefined } {
  const cache = {
    stored: undefined as string | undefined,
    get: () => cache.stored,
    set: (token: string | undefined) => {
      cache.stored = token;
    },
  };
  return cache;
}

describe('the VaultClient over TeamPass 3: detection', () => {
  it('detects TeamPass 3 with one keyless request, then signs in once for every call', async () => {
    const vault = client({ dialect: 'auto' });
    const [item] = await vault.readItems({ ids: [1] });
    expect(item).toMatchObject({ id: 1, label: 'shared-db', password: 'S3cret-DB!', tags: ['db', 'prod'] });
    await vault.readUserFolders({ login: 'alice' });
    await vault.findItems({ folderIds: [1], query: 'shared' });
    const [probe, ...rest] = fake.requests;
    expect(probe).toMatchObject({ method: 'GET', url: '/api/index.php/info/version', status: 401 });
    expect(probe?.headers.authorization).toBeUndefined();
    expect(rest.filter((r) => r.url.endsWith('/info/version') || r.url.endsWith('/openapi.json'))).toEqual(
      [],
    );
    expect(fake.signIns('alice')).toBe(1);
    expect(await vault.capabilities()).toEqual({
      server: 'teampass3',
      dialect: 'teampass3',
      credentials: 'password',
      version: undefined,
      features: [],
      keyTransport: 'header',
      search: 'full',
      files: false,
      fourByteText: true,
      maxResults: 100_000,
      maxIds: 1,
      otp: true,
      tags: true,
      editTags: 'kept',
      urlLookup: true,
      otherUsers: false,
      enforcedRights: true,
      detected: true,
    });
    expect(fake.requests.filter((r) => r.url.endsWith('/info/version'))).toHaveLength(1);
  });

  it('sends no probe when the stored dialect is given', async () => {
    const vault = client();
    expect((await vault.capabilities()).dialect).toBe('teampass3');
    await vault.readTags();
    expect(fake.requests.map((r) => r.url.split('?')[0])).toEqual([
      '/api/index.php/authorize',
      '/api/index.php/item/allTags',
    ]);
  });

  it('says what signing in needs when only an API key is given', async () => {
    const vault = createWireClient({ baseUrl: fake.url, auth: ALICE.apiKey, retry: { retries: 0 } });
    expect(await vault.capabilities()).toMatchObject({ dialect: 'teampass3', credentials: 'password' });
    const error = await failure(vault.readItems({ ids: [1] }));
    expect(error.code).toBe('unauthorized');
    expect(error.message).toMatch(/is a TeamPass 3 server .*missing a login/);
    expect(fake.signIns()).toBe(0);
    expect(() =>
      createWireClient({ baseUrl: fake.url, auth: { login: 'alice' }, dialect: 'teampass3' }),
    ).toThrow(/or a login with a personal access token: missing apiKey/);
  });
});

describe('the VaultClient over TeamPass 3: reads', () => {
  it('reads several ids as bounded parallel item/get calls, leaving out what TeamPass answers [] for', async () => {
    let inFlight = 0;
    let most = 0;
    const counting: typeof fetch = async (input, init) => {
      inFlight++;
      most = Math.max(most, inFlight);
      try {
        return await fetch(input, init);
      } finally {
        inFlight--;
      }
    };
    const bob = client({ fetch: counting }, BOB);
    const ids = [1, 2, 5, 99_999, 1, 3];
    const items = await bob.readItems({ ids });
    // bob sees Shared only: 2 (DevOnly), 3 (Level 20) and 99 999 are "not found or not permitted".
    expect(items.map((item) => item.id)).toEqual([1, 5]);
    expect(requestsTo('/item/get')).toHaveLength(5);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(4);
    await expect(failure(bob.readItems({ ids: [] }))).resolves.toMatchObject({ code: 'invalid_request' });
  });

  it('reads one item, and says "not found or not permitted" as one honest error', async () => {
    const bob = client({}, BOB);
    expect(await bob.getItem(1)).toMatchObject({
      id: 1,
      login: 'dbadmin',
      url: 'https://db.example.test/login',
    });
    for (const id of [2, 99_999]) {
      const error = await failure(bob.getItem(id));
      expect(error.code).toBe('not_found');
      expect(error.message).toBe(
        `item/get: item ${id} was not found, or the signed-in user may not read it (TeamPass 3 answers both the same way).`,
      );
    }
  });

  it('reads 10,000 items of a folder across 20 pages, and inaccessible folders as empty', async () => {
    const alice = client();
    const items = await alice.readFolders({ ids: [3] });
    expect(items).toHaveLength(BULK_ITEMS);
    expect(items[0]).toMatchObject({ label: 'bulk-00000', password: 'pw-0', folderId: 3, path: ['Bulk'] });
    expect(items.at(-1)).toMatchObject({ label: 'bulk-09999' });
    expect(requestsTo('/item/inFolders')).toHaveLength(20);
    const bob = client({}, BOB);
    expect(await bob.readFolders({ ids: [2] })).toEqual([]);
    expect((await bob.readFolders({ ids: [2, 1] })).map((item) => item.folderId)).toEqual([1, 1]);
  });

  it("reads the signed-in user's folders: a tree 20 levels deep flattened, titles decoded", async () => {
    const alice = client();
    const folders = await alice.readUserFolders({ login: 'alice' });
    const levels = folders.filter((folder) => folder.title.startsWith('Level'));
    expect(levels.map((folder) => folder.level)).toEqual(LEVELS.map((_, i) => i + 1));
    expect(levels.map((folder) => folder.title)).toEqual(LEVELS);
    expect(levels.every((folder, i) => i === 0 || folder.parentId === levels[i - 1]!.id)).toBe(true);
    expect(folders.find((folder) => folder.id === 4)).toMatchObject({
      title: HOSTILE_FOLDER,
      accessType: 'W',
    });
    expect(folders.find((folder) => folder.id === 3)).toMatchObject({ title: 'Bulk', accessType: 'R' });
    expect(folders.find((folder) => folder.id === 1)?.raw).toMatchObject({
      access_type: 'W',
      label: 'Shared',
    });
    // The login is the signed-in user's, whatever its case.
    expect(await alice.readUserFolders({ login: 'ALICE' })).toHaveLength(folders.length);
    const deep = await alice.getItem(3);
    expect(deep.path).toEqual(LEVELS);
  });

  it("refuses another user's folders and items with unsupported, sending nothing for them", async () => {
    const alice = client();
    await alice.identity();
    const before = fake.requests.length;
    for (const read of [alice.readUserFolders({ login: 'bob' }), alice.readUserItems({ login: 'bob' })]) {
      const error = await failure(read);
      expect(error.code).toBe('unsupported');
      expect(error.message).toMatch(/signed-in user \("alice"\) read only their own data, not that of "bob"/);
    }
    expect(fake.requests.length).toBe(before);
  });

  it("reads the signed-in user's items: every readable folder's", async () => {
    const bob = client({}, BOB);
    const items = await bob.readUserItems({ login: 'bob' });
    expect(items.map((item) => item.id).sort((a, b) => a - b)).toEqual([1, 5]);
  });

  it('finds items by label across folders, kept to the folders asked, % taken as written', async () => {
    const alice = client();
    const found = await alice.findItems({ folderIds: [1, 4], query: 'jerry <b>"x"' });
    expect(found.map((item) => [item.id, item.status])).toEqual([[4, 'OK']]);
    expect(found[0]).toMatchObject({ label: HOSTILE_LABEL, login: "o'neil & <co>" });
    // TeamPass compares the stored spelling (`&auml;rger &euro;`): the search is sent escaped alike.
    for (const query of ['ärger € “q”', 'ÄRGER', 'ß'])
      expect((await alice.findItems({ folderIds: [1, 4], query })).map((item) => item.id)).toEqual([4]);
    expect(await alice.findItems({ folderIds: [2], query: 'shared' })).toEqual([]);
    expect((await alice.findItems({ folderIds: [1], query: '100%' })).map((item) => item.id)).toEqual([5]);
    expect(await alice.findItems({ folderIds: [1], query: '%' })).toHaveLength(1);
  });

  it('reads the current one-time code, tags, URL matches and who is signed in', async () => {
    const alice = client();
    const otp = await alice.readOtp({ id: 2 });
    const expected = totpAt(normalizeTotp(TOTP_SECRET, 'sha1', 6, 30), Math.floor(fake.clock.now() / 1000));
    expect(otp).toEqual({
      itemId: 2,
      code: expected.code,
      secondsLeft: expected.expiresIn,
      period: 30,
      digits: 6,
    });
    expect((await alice.getItem(2)).otp).toBe(true);
    expect((await alice.getItem(2)).raw.totp).toBe('[REDACTED]');
    expect(await failure(alice.readOtp({ id: 1 }))).toMatchObject({
      code: 'not_found',
      serverMessage: 'OTP not configured for this item',
    });
    expect(await alice.readTags()).toEqual(expect.arrayContaining(['db', 'prod', 'secret-tag']));
    expect(await alice.findByUrl({ url: 'db.example.test/log' })).toEqual([
      {
        id: 1,
        label: 'shared-db',
        login: 'dbadmin',
        url: 'https://db.example.test/login',
        folderId: 1,
        otp: false,
      },
    ]);
    expect(await alice.identity()).toEqual({
      login: 'alice',
      userId: fake.user('alice').id,
      administrator: false,
      api: { create: true, read: true, update: true, delete: true },
    });
  });

  it('has no attachments: a typed unsupported error, nothing sent', async () => {
    const alice = client();
    const calls = [
      alice.addFile({ itemId: 1, file: new Uint8Array([1]), fileName: 'a.txt' }),
      alice.listFiles({ itemId: 1 }),
      alice.downloadFile({ id: 1 }),
      alice.call('listFiles', { itemId: 1 }),
    ];
    for (const call of calls) {
      const error = await failure(call);
      expect(error.code).toBe('unsupported');
      expect(error.message).toMatch(/TeamPass 3 has no attachments \(capabilities: files false\)/);
    }
    expect(fake.requests).toEqual([]);
  });

  it('generates a password with the core’s generator, sending nothing: TeamPass 3 has no generator', async () => {
    const alice = client();
    const { password } = await alice.generatePassword({ rules: { length: 18, symbols: false } });
    expect(password).toMatch(/^[A-Za-z2-9]{18}$/);
    expect((await alice.call('generatePassword', { rules: { complexityLevel: 90 } })).password).toHaveLength(
      23,
    );
    expect((await failure(alice.generatePassword({ rules: { length: 2 } }))).code).toBe('invalid_request');
    expect(fake.requests).toEqual([]);
  });
});

describe('the VaultClient over TeamPass 3: writes', () => {
  it('adds, reads back, replaces, changes some fields of and deletes an item with entities and emoji', async () => {
    const alice = client();
    const label = `${HOSTILE_LABEL} ${Date.now()}`;
    const { id, status } = await alice.addItem({
      item: {
        label,
        password: 'p&w <1> 🔑',
        folderId: 4,
        login: "o'neil & co",
        email: 'ops@example.test',
        url: 'https://x.example.test/?a=1&b=2',
        description: 'line one\nline <two> & more',
        tags: ['ops', 'émoji'],
      },
    });
    expect(status).toBe('Item added successfully');
    expect(await alice.getItem(id)).toMatchObject({
      label,
      password: 'p&w <1> 🔑',
      login: "o'neil & co",
      description: 'line one\nline <two> & more',
      folderId: 4,
      path: [HOSTILE_FOLDER],
      tags: ['ops', 'émoji'],
      otp: false,
    });
    await alice.updateItem({ id, item: { label: `${label} v2`, password: 'second', folderId: 4 } });
    expect(await alice.getItem(id)).toMatchObject({
      label: `${label} v2`,
      password: 'second',
      login: '',
      tags: [],
    });
    await alice.updateItemFields(id, { login: 'kept', tags: 'a b' });
    await alice.updateItemFields(id, { url: 'https://only.example.test' });
    expect(await alice.getItem(id)).toMatchObject({
      password: 'second',
      login: 'kept',
      url: 'https://only.example.test',
      tags: ['a', 'b'],
    });
    expect(await alice.updateItemFields(id, {})).toEqual({ status: 'unchanged' });
    await alice.deleteItems({ ids: [id] });
    expect(await alice.readItems({ ids: [id] })).toEqual([]);
    expect((await failure(alice.getItem(id))).code).toBe('not_found');
  });

  it('creates, renames and deletes folders, complexity levels mapped, subfolders skipped once gone', async () => {
    const alice = client();
    const title = `tp3-folder-${Date.now()}`;
    const { id: parent } = await alice.addFolder({
      folder: { title, complexityLevel: 50, renewalPeriod: 6 },
    });
    expect(fake.folder(parent)).toMatchObject({ complexity: 38, renewalPeriod: 6, parentId: 0 });
    const { id: child } = await alice.addFolder({
      folder: { title: `${title}-child`, parentId: parent, complexityLevel: 90 },
    });
    expect(fake.folder(child)).toMatchObject({ complexity: 60, parentId: parent });
    await alice.updateFolder({
      id: parent,
      folder: { title: `${title} renamed`, complexityLevel: 25, renewalPeriod: 0 },
    });
    expect(fake.folder(parent)).toMatchObject({ complexity: 20 });
    expect((await alice.readUserFolders({ login: 'alice' })).find((f) => f.id === parent)?.title).toBe(
      `${title} renamed`,
    );
    expect(await failure(alice.addFolder({ folder: { title: 'mine', personal: true } }))).toMatchObject({
      code: 'unsupported',
    });
    expect(
      await failure(alice.addFolder({ folder: { title: 'odd', complexityLevel: 33 as never } })),
    ).toMatchObject({ code: 'invalid_request' });
    fake.resetCounters();
    await alice.deleteFolders({ ids: [parent, child] });
    expect(requestsTo('/folder/delete')).toHaveLength(1);
    expect(fake.folder(parent)).toBeUndefined();
  });

  it("lets the server's refusal through with its words: read-only folder, API permission off", async () => {
    const bob = client({}, BOB);
    expect(await failure(bob.addItem({ item: { label: 'no', password: 'x', folderId: 1 } }))).toMatchObject({
      code: 'forbidden',
      status: 403,
      serverMessage: 'Access denied: folder is read-only',
    });
    expect(await failure(bob.deleteItems({ ids: [1] }))).toMatchObject({
      code: 'forbidden',
      serverMessage: 'Access denied: insufficient permissions for this action',
    });
    const alice = client();
    expect(
      await failure(alice.addItem({ item: { label: 'shared-db', password: 'x', folderId: 1 } })),
    ).toMatchObject({ code: 'duplicate_label', status: 422 });
  });
});

describe('the VaultClient over TeamPass 3: rights', () => {
  it.each([
    ['create', { create: false }, { 1: 'R', 3: 'R' }],
    ['update', { update: false }, { 1: 'NE', 3: 'R' }],
    ['delete', { delete: false }, { 1: 'ND', 3: 'R' }],
    ['none', {}, { 1: 'W', 3: 'R' }],
  ] as const)('folds the API permission %s off into the folder rights', async (_, flags, rights) => {
    fake.setApiFlags('alice', flags);
    const alice = client();
    const folders = await alice.readUserFolders({ login: 'alice' });
    const byId = Object.fromEntries(folders.map((folder) => [folder.id, folder.accessType]));
    expect({ 1: byId[1], 3: byId[3] }).toEqual(rights);
  });

  it('lets the server refuse every read when reading is off', async () => {
    fake.setApiFlags('alice', { read: false });
    const error = await failure(client().readUserFolders({ login: 'alice' }));
    expect(error).toMatchObject({ code: 'forbidden', status: 403 });
  });

  it('runs the access checker unchanged for the signed-in login', async () => {
    fake.setApiFlags('alice', { delete: false });
    const alice = client();
    const access = createAccessChecker(vaultClientOf(alice));
    expect(await access.canRead('alice', { id: 1, folderId: 1 })).toBe(true);
    expect(await access.canWrite('alice', { id: 1, folderId: 1 })).toBe(true);
    expect(await access.canDelete('alice', { id: 1, folderId: 1 })).toBe(false);
    expect(await access.canAdd('alice', 3)).toBe(false);
    expect((await access.rightOn('alice', 1)).words).toBe('edit, no delete');
    const bobAccess = createAccessChecker(vaultClientOf(client({}, BOB)));
    expect(await bobAccess.canRead('bob', 2)).toBe(false);
    expect(await bobAccess.filterReadable('bob', [{ id: 1 }, { id: 2 }, { id: 5 }])).toEqual([
      { id: 1 },
      { id: 5 },
    ]);
    const other = await failure(createAccessChecker(vaultClientOf(alice)).folders('bob'));
    expect(other.code).toBe('unsupported');
  });
});

describe('the VaultClient over TeamPass 3: sessions', () => {
  it('signs in once per token lifetime for a client used for many calls', async () => {
    const alice = client();
    await Promise.all([
      alice.readItems({ ids: [1, 2, 3, 4, 5] }),
      alice.readUserFolders({ login: 'alice' }),
      alice.readTags(),
      alice.findItems({ folderIds: [1], query: 'db' }),
      alice.readOtp({ id: 2 }),
    ]);
    for (let i = 0; i < 20; i++) await alice.getItem(1);
    expect(fake.signIns('alice')).toBe(1);
    fake.clock.advance(61 * 60_000);
    for (let i = 0; i < 5; i++) await alice.getItem(1);
    expect(fake.signIns('alice')).toBe(2);
    expect(fake.requests.filter((r) => r.status === 401)).toEqual([]);
  });

  it('makes no sign-in with a valid cached token, and keeps it for the next process', async () => {
    const cache = memoryCache();
    const first = client({ teampass3: { tokenCache: cache } });
    await first.readTags();
    await first.dispose({ signOut: false });
    expect(cache.stored).toBeDefined();
    fake.resetCounters();
    const second = client({ teampass3: { tokenCache: cache } });
    await second.getItem(1);
    await second.readUserFolders({ login: 'alice' });
    expect(fake.signIns()).toBe(0);
    await second.dispose();
    expect(requestsTo('/auth/logout')).toHaveLength(1);
    expect(cache.stored).toBeUndefined();
    expect(await failure(second.getItem(1))).toMatchObject({ code: 'aborted' });
  });

  it('signs in again once when the token expired unnoticed, or was revoked', async () => {
    // The client's clock does not move with the fake's: it sends a token TeamPass finds expired.
    const alice = client({ clock: { now: Date.now } });
    await alice.getItem(1);
    fake.clock.advance(61 * 60_000);
    expect((await alice.getItem(1)).id).toBe(1);
    fake.revokeSessions('alice');
    expect((await alice.getItem(1)).id).toBe(1);
    expect(fake.signIns('alice')).toBe(3);
    expect(fake.requests.filter((r) => r.status === 401)).toHaveLength(2);
  });

  it('reports a wrong password and API access off as unauthorized, with the uniform words', async () => {
    const wrong = await failure(client({}, { ...ALICE, password: 'not the password' }).getItem(1));
    expect(wrong).toMatchObject({
      code: 'unauthorized',
      status: 401,
      serverMessage: 'Login failed. (Invalid credentials)',
    });
    fake.updateUser('carol', { apiEnabled: false });
    const off = await failure(client({}, CAROL).readTags());
    expect(off).toMatchObject({ code: 'unauthorized', serverMessage: 'Login failed. (Invalid credentials)' });
    fake.configure({ api: false });
    expect(await failure(client({}, BOB).readTags())).toMatchObject({ code: 'api_disabled', status: 503 });
  });

  it('tells a locked account (sign_in_locked) and HTTPS required (https_required) from refusals', async () => {
    fake.configure({ failedSignInsPerLogin: 1, lockMinutes: 1 });
    try {
      await failure(client({}, { ...CAROL, password: `${CAROL.password}x` }).readTags());
      const locked = await failure(client({}, CAROL).readTags());
      expect(locked).toMatchObject({
        code: 'unauthorized',
        reason: 'sign_in_locked',
        serverMessage: 'Login failed. (Account temporarily locked)',
      });
    } finally {
      fake.configure({ failedSignInsPerLogin: 0 });
      fake.clock.advance(61_000);
    }
    fake.configure({ requireHttps: true });
    try {
      const https = await failure(client().readTags());
      expect(https).toMatchObject({ code: 'forbidden', reason: 'https_required', status: 403 });
    } finally {
      fake.configure({ requireHttps: false });
    }
  });

  it('says a 429 was not waited when it asks longer than the client waits', async () => {
    const alice = client({
      retry: { retries: 0, maxRetryAfterMs: 1000 },
      clock: { sleep: async () => undefined },
    });
    await alice.readTags();
    const now = Math.floor(fake.clock.now() / 1000);
    fake.clock.set((now - (now % 60) + 60 + 5) * 1000); // 55 s before the minute ends
    fake.configure({ rateLimitPerMinute: 1 });
    try {
      await alice.readTags().catch(() => undefined);
      const limited = await failure(alice.readTags());
      expect(limited.code).toBe('rate_limited');
      expect(limited.message).toMatch(
        /; not waited: the wait asked is longer than the 1 s this client waits\. The server asks to wait \d+ s\.$/,
      );
    } finally {
      fake.configure({ rateLimitPerMinute: 0 });
      // Past the window, so that the next test's limit counts its own calls only.
      fake.clock.advance(180_000);
    }
  });

  it('waits out a 429 storm within bounds, then fails with rate_limited and the wait asked for', async () => {
    const waits: number[] = [];
    // The waits do not move the fake's clock: the storm outlasts every one of them.
    const alice = client({
      retry: { retries: 0, rateLimitRetries: 1 },
      clock: { sleep: async (ms) => void waits.push(ms) },
    });
    const now = Math.floor(fake.clock.now() / 1000);
    fake.clock.set((now - (now % 60) + 60 + 45) * 1000); // 15 s before the minute ends
    await alice.readTags();
    fake.configure({ rateLimitPerMinute: 2 });
    const outcomes: unknown[] = [];
    for (let i = 0; i < 8; i++)
      outcomes.push(
        await alice.getItem(1).then(
          () => 'ok',
          (error: unknown) => error,
        ),
      );
    const limited = outcomes.filter((outcome): outcome is VaultError =>
      isVaultError(outcome, 'rate_limited'),
    );
    errors.push(...limited);
    // Two calls a minute get through; the other six are each held back once, then refused.
    expect(outcomes.slice(0, 2)).toEqual(['ok', 'ok']);
    expect(limited).toHaveLength(6);
    for (const error of limited) {
      expect(error).toMatchObject({ status: 429, retryAfterMs: 15_000 });
      expect(error.message).toMatch(/still limited after 1 wait\. The server asks to wait 15 s\.$/);
    }
    // One wait per call, each as long as Retry-After said.
    expect(waits).toEqual(Array.from({ length: 6 }, () => 15_000));
  });

  it('signs in with a personal access token where the site allows it', async () => {
    fake.configure({ personalAccessTokens: true });
    const token = fake.createPersonalAccessToken('alice');
    const vault = client({}, { login: 'alice', personalAccessToken: token });
    expect((await vault.getItem(1)).id).toBe(1);
    expect(requestsTo('/authorizeToken')).toHaveLength(1);
    expect(vault.redact(`token ${token}`)).toBe('token [REDACTED]');
    fake.configure({ personalAccessTokens: false });
  });
});

describe('the VaultClient over TeamPass 3: secrets', () => {
  it('never shows the password, the API key or a token in errors, events or redacted text', async () => {
    const alice = client({ dialect: 'auto' });
    await alice.getItem(1);
    await failure(client({}, { ...ALICE, password: `${ALICE.password}x` }).getItem(1));
    const tokens = fake.tokens();
    expect(tokens.length).toBeGreaterThan(0);
    const secrets = [ALICE.password, ALICE.apiKey, BOB.password, BOB.apiKey, CAROL.password, ...tokens];
    const places = [
      ...errors.flatMap((error) => [
        String(error),
        inspect(error, { depth: 10 }),
        JSON.stringify(error),
        error instanceof Error ? String(error.stack) : '',
      ]),
      JSON.stringify(events),
      alice.redact(
        `Bearer ${tokens[0]} ${ALICE.password} ${ALICE.apiKey} ${encodeURIComponent(ALICE.password)}`,
      ),
    ];
    expect(errors.length).toBeGreaterThan(10);
    for (const place of places) {
      for (const secret of secrets) expect(place).not.toContain(secret);
    }
  });
});
