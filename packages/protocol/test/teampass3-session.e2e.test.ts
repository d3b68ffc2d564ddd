/**
 * The TeamPass 3 session and caller against the TeamPass 3 fake over HTTP: sign-in and token
 * reuse, expiry, revocation, refused credentials, the API switches, 429 storms, long paged reads,
 * deep trees, hostile labels, the token cache, and a leak scan over everything reported.
 */

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRedactor, isVaultError, type Redactor, VaultError } from '../src/errors.ts';
import { createTeamPass3Caller, type TeamPass3RequestEvent } from '../src/teampass3/caller.ts';
import {
  createTeamPass3Session,
  type TeamPass3Credentials,
  type TeamPass3Session,
} from '../src/teampass3/session.ts';
import { startTeamPass3Fake, type TeamPass3Fake } from '../src/testing.ts';
import { settingsOf } from '../src/vault/options.ts';
import type { VaultClientOptions } from '../src/vault/types.ts';

const ALICE = {
  login: 'alice',
  password: 'Al1ce pass&word=+%20',
  apiKey: 'aliceKeyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
};
const BOB = { login: 'bob', password: 'B0b-pass-2026', apiKey: 'bobKeyBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB' };
const BULK_ITEMS = 10_000;
const DEPTH = 20;

let fake: TeamPass3Fake;
const events: TeamPass3RequestEvent[] = [];
const errors: unknown[] = [];
const sessions: TeamPass3Session[] = [];

beforeAll(async () => {
  const deep = { title: 'Level 20', children: [] as unknown[] };
  let tree: { title: string; children?: unknown[] } = deep;
  for (let level = DEPTH - 1; level >= 1; level--) tree = { title: `Level ${level}`, children: [tree] };
  fake = await startTeamPass3Fake({
    now: Date.UTC(2026, 10, 24, 10, 0, 0),
    seed: {
      folders: [
        { id: 1, title: 'Shared' },
        { id: 2, title: 'DevOnly' },
        { id: 3, title: 'Bulk' },
        tree as { title: string },
      ],
      roles: [
        {
          name: 'Devs',
          folders: {
            Shared: 'W',
            DevOnly: 'W',
            Bulk: 'R',
            ...Object.fromEntries(
              Array.from({ length: DEPTH }, (_, i) => [
                Array.from({ length: i + 1 }, (_, j) => `Level ${j + 1}`).join('/'),
                'W' as const,
              ]),
            ),
          },
        },
        { name: 'Ops', folders: { Shared: 'R' } },
      ],
      users: [
        { ...ALICE, roles: ['Devs'], canCreateRootFolder: true },
        { ...BOB, roles: ['Ops'], api: { delete: false } },
      ],
      items: [
        {
          id: 1,
          label: 'shared-db',
          folder: 'Shared',
          password: 'S3cret-DB!',
          url: 'https://db.example.test/login',
          tags: 'db prod',
        },
        { id: 2, label: 'ci', folder: 'DevOnly', password: 'ci-token', totp: 'JBSWY3DPEHPK3PXP' },
        {
          id: 3,
          label: 'deep secret',
          folder: Array.from({ length: DEPTH }, (_, j) => `Level ${j + 1}`).join('/'),
          password: 'deep',
        },
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
  await Promise.all(sessions.map((session) => session.dispose({ signOut: false })));
  await fake.close();
});
beforeEach(() => {
  fake.configure({ rateLimitPerMinute: 0, api: true, personalAccessTokens: false, tokenDurationMinutes: 60 });
  fake.updateUser('alice', { disabled: false, apiEnabled: true });
  fake.resetCounters();
});
afterEach(() => {
  events.length = 0;
});

function session(overrides: Partial<VaultClientOptions> = {}, credentials: TeamPass3Credentials = ALICE) {
  const settings = settingsOf({
    baseUrl: fake.url,
    auth: credentials,
    onRequest: (event) => events.push(event as TeamPass3RequestEvent),
    ...overrides,
    retry: { retries: 0, ...overrides.retry },
    // Waiting out a 429 moves the fake's clock instead of the test's.
    clock: { now: () => fake.clock.now(), sleep: async (ms) => fake.clock.advance(ms), ...overrides.clock },
  });
  const created = createTeamPass3Session({ ...settings, credentials });
  sessions.push(created);
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

/** Moves the fake's clock forward to the given second of a minute (TeamPass's rate limit is per minute). */
function atSecond(second: number): void {
  const now = Math.floor(fake.clock.now() / 1000);
  fake.clock.set((now - (now % 60) + 60 + second) * 1000);
}

const authorizeCalls = () => fake.requests.filter((r) => r.url.endsWith('/authorize')).length;

describe('a TeamPass 3 session', () => {
  it('signs in once and shares the sign-in between concurrent calls', async () => {
    const alice = session();
    const answers = await Promise.all([
      alice.call('writableFolders', {}),
      alice.call('getItem', { id: 1 }),
      alice.call('allTags', {}),
      ...Array.from({ length: 7 }, () => alice.call('listFolders', {})),
    ]);
    expect(answers[1]).toMatchObject([{ id: 1, label: 'shared-db', password: 'S3cret-DB!' }]);
    expect(fake.signIns('alice')).toBe(1);
    expect(alice.signIns).toBe(1);
    expect((await alice.user()).api).toEqual({ create: true, read: true, update: true, delete: true });
  });

  it('keeps the token until shortly before exp, then signs in again before calling', async () => {
    const alice = session();
    await alice.call('allTags', {});
    fake.clock.advance(58 * 60_000);
    await alice.call('allTags', {});
    expect(fake.signIns('alice')).toBe(1);
    fake.clock.advance(90_000); // 30 s before exp: inside the 60 s margin
    await alice.call('allTags', {});
    expect(fake.signIns('alice')).toBe(2);
    expect(fake.requests.filter((r) => r.status === 401)).toEqual([]);
  });

  it('signs in once again when the token expired, and retries the call once', async () => {
    const alice = session({ teampass3: { refreshMarginMs: 0 } });
    await alice.call('allTags', {});
    fake.clock.advance(61 * 60_000);
    await expect(alice.call('getItem', { id: 2 })).resolves.toHaveLength(1);
    expect(fake.signIns('alice')).toBe(2);
  });

  it('signs in again once when the server revoked the token, and retries the call once', async () => {
    const alice = session();
    await alice.call('allTags', {});
    fake.revokeSessions('alice');
    await expect(alice.call('getItem', { id: 1 })).resolves.toHaveLength(1);
    expect(fake.requests.map((r) => `${r.status} ${r.url.split('?')[0]!.split('/').pop()}`)).toEqual([
      '200 authorize',
      '200 allTags',
      '401 get',
      '200 authorize',
      '200 get',
    ]);
  });

  it('shares one sign-in again between concurrent calls refused with 401', async () => {
    const alice = session();
    await alice.call('allTags', {});
    fake.revokeSessions('alice');
    await Promise.all(Array.from({ length: 6 }, () => alice.call('allTags', {})));
    expect(fake.signIns('alice')).toBe(2);
  });

  it('gives up with the server words when signing in again is refused (user disabled)', async () => {
    const alice = session();
    await alice.call('allTags', {});
    fake.updateUser('alice', { disabled: true });
    const error = await failure(alice.call('allTags', {}));
    expect(error.code).toBe('unauthorized');
    expect(error.reason).toBe('sign_in_refused');
    expect(error.serverMessage).toBe('Login failed. (Invalid credentials)');
    expect(authorizeCalls()).toBe(2);
  });

  it('reports a wrong password as unauthorized with the uniform TeamPass words', async () => {
    const wrong = session({}, { ...ALICE, password: 'not the password' });
    const error = await failure(wrong.call('allTags', {}));
    expect(error).toMatchObject({
      code: 'unauthorized',
      reason: 'sign_in_refused',
      status: 401,
      serverMessage: 'Login failed. (Invalid credentials)',
    });
    expect(error.message).toBe('authorize failed: Login failed. (Invalid credentials) (HTTP 401).');
    expect(authorizeCalls()).toBe(1);
  });

  it('tells a sign-in TeamPass locked after repeated failures from wrong credentials', async () => {
    fake.configure({ failedSignInsPerLogin: 2 });
    try {
      const nobody = { ...ALICE, login: 'locked-out-nobody', password: 'not the password' };
      for (let attempt = 0; attempt < 2; attempt++)
        expect(await failure(session({}, nobody).call('allTags', {}))).toMatchObject({
          code: 'unauthorized',
          reason: 'sign_in_refused',
        });
      const locked = await failure(session({}, nobody).call('allTags', {}));
      expect(locked).toMatchObject({
        code: 'unauthorized',
        reason: 'sign_in_locked',
        status: 401,
        serverMessage: 'Login failed. (Account temporarily locked)',
      });
    } finally {
      fake.configure({ failedSignInsPerLogin: 0 });
    }
  });

  it('tells API access off for the user from the API switched off for the site', async () => {
    fake.updateUser('alice', { apiEnabled: false });
    const off = await failure(session().call('allTags', {}));
    expect(off).toMatchObject({
      code: 'unauthorized',
      reason: 'sign_in_refused',
      serverMessage: 'Login failed. (Invalid credentials)',
    });
    fake.updateUser('alice', { apiEnabled: true });
    const live = session();
    await live.call('allTags', {});
    fake.configure({ api: false });
    const site = await failure(session().call('allTags', {}));
    expect(site).toMatchObject({
      code: 'api_disabled',
      status: 503,
      serverMessage: 'API usage is not allowed',
    });
    // TeamPass lets tokens already issued work on.
    await expect(live.call('allTags', {})).resolves.toContain('db');
  });

  it('waits out a 429 for as long as Retry-After says, then succeeds', async () => {
    const waits: number[] = [];
    // TeamPass's Retry-After names the end of the minute, but the weighted previous minute may
    // still hold the caller back then: it can take two waits.
    const alice = session({
      clock: {
        sleep: async (ms) => {
          waits.push(ms);
          fake.clock.advance(ms);
        },
      },
      retry: { rateLimitRetries: 4, maxRetryAfterMs: 60_000 },
    });
    atSecond(30);
    fake.configure({ rateLimitPerMinute: 3 });
    for (let i = 0; i < 6; i++) await alice.call('allTags', {});
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every((ms) => ms > 0 && ms <= 60_000)).toBe(true);
    expect(fake.requests.filter((r) => r.status === 429).length).toBe(waits.length);
  });

  it('fails with rate_limited after a bounded number of waits in a 429 storm', async () => {
    const waits: number[] = [];
    const alice = session({
      clock: { sleep: async (ms) => void waits.push(ms) },
      retry: { rateLimitRetries: 2 },
    });
    atSecond(45);
    await alice.call('allTags', {});
    fake.configure({ rateLimitPerMinute: 1 });
    await alice.call('allTags', {}).catch(() => undefined);
    const error = await failure(alice.call('allTags', {}));
    expect(error.code).toBe('rate_limited');
    expect(error.serverMessage).toMatch(/^Rate limit exceeded — retry in \d+ seconds$/);
    expect(error.message).toMatch(/still limited after 2 waits\. The server asks to wait \d+ s\.$/);
    expect(waits.slice(-2)).toEqual([15_000, 15_000]);
  });

  it('does not wait longer than maxRetryAfterMs', async () => {
    const waits: number[] = [];
    const alice = session({
      clock: { sleep: async (ms) => void waits.push(ms) },
      retry: { maxRetryAfterMs: 0 },
    });
    await alice.call('allTags', {});
    fake.configure({ rateLimitPerMinute: 1 });
    const error = await failure(alice.call('allTags', {}));
    expect(error.code).toBe('rate_limited');
    expect(waits).toEqual([]);
  });

  it('reads 10,000 items across 20 pages, in id order', async () => {
    const alice = session();
    const bulk = (await alice.call('writableFolders', {})).find((f) => f.title === 'Bulk')!;
    const page = await alice.readAll('itemsInFolders', { folders: [bulk.id] });
    expect(page.items).toHaveLength(BULK_ITEMS);
    expect(page).toMatchObject({ total: BULK_ITEMS, truncated: false });
    expect(page.items[0]).toMatchObject({ label: 'bulk-00000', password: 'pw-0', folderId: bulk.id });
    expect(page.items.at(-1)).toMatchObject({ label: 'bulk-09999' });
    expect(page.items.every((item, i) => i === 0 || item.id > page.items[i - 1]!.id)).toBe(true);
    expect(fake.requests.filter((r) => r.url.includes('/item/inFolders')).length).toBe(20);
  });

  it('reports a cut when a paged read reaches maxItems', async () => {
    const alice = session();
    const page = await alice.readAll('itemsInFolders', { folders: [3] }, { maxItems: 1200 });
    expect(page.items).toHaveLength(1200);
    expect(page).toMatchObject({ total: BULK_ITEMS, truncated: true });
    expect(fake.requests.filter((r) => r.url.includes('/item/inFolders')).length).toBe(3);
  });

  it('reads a folder tree 20 levels deep, as a tree and flat', async () => {
    const alice = session();
    const tree = await alice.call('listFolders', {});
    let node = tree.find((root) => root.title === 'Level 1');
    let depth = 0;
    while (node) {
      depth++;
      node = node.children[0];
    }
    expect(depth).toBe(DEPTH);
    const flat = (await alice.call('writableFolders', {})).filter((f) => f.title.startsWith('Level'));
    expect(flat.map((f) => f.level)).toEqual(Array.from({ length: DEPTH }, (_, i) => i + 1));
    expect(flat.every((f, i) => i === 0 || f.parentId === flat[i - 1]!.id)).toBe(true);
    const [deep] = await alice.call('getItem', { id: 3 });
    expect(deep!.path).toEqual(Array.from({ length: DEPTH }, (_, j) => `Level ${j + 1}`));
  });

  it('round-trips labels full of entities and emoji, and finds them by label', async () => {
    const alice = session();
    const label = `Tom & Jerry <b>"x"</b> 'y' 😀🎉 Ärger € ${Date.now()}`;
    const password = '  pw &amp; <é> 🔑  ';
    const { id } = await alice.call('createItem', {
      label,
      folder_id: 2,
      password,
      login: "o'neil & co",
      tags: ['t-1', 'émoji'],
    });
    const [item] = await alice.call('getItem', { id });
    expect(item).toMatchObject({ label, password, login: "o'neil & co", tags: ['t-1', 'émoji'] });
    expect(fake.item(id)!.label).toContain(
      'Tom &amp; Jerry &lt;b&gt;&quot;x&quot;&lt;/b&gt; &#039;y&#039; 😀🎉 &Auml;rger &euro;',
    );
    const found = await alice.call('searchItems', { label: 'Jerry <b>"x"', like: true });
    expect(found.map((f) => f.id)).toEqual([id]);
    const exact = await alice.readAll('searchItems', { label });
    expect(exact.items.map((f) => f.id)).toEqual([id]);
  });

  it('reads a label typed with an entity decoded: TeamPass does not encode an entity twice', async () => {
    const alice = session();
    const { id } = await alice.call('createItem', {
      label: `AT&amp;T ${Date.now()}`,
      folder_id: 2,
      password: 'pw',
    });
    expect(fake.item(id)!.label).toMatch(/^AT&amp;T /);
    const [item] = await alice.call('getItem', { id });
    expect(item?.label).toMatch(/^AT&T /);
  });

  it('finds items by URL, whatever characters the URL holds', async () => {
    const alice = session();
    const url = `https://x.example.test/p?a=1&b=2+3%20x#${Date.now()}`;
    const { id } = await alice.call('createItem', { label: `url ${url}`, folder_id: 2, password: 'pw', url });
    const found = await alice.call('findByUrl', { url });
    expect(found).toMatchObject([{ id, url }]);
  });

  it('reads the current TOTP code', async () => {
    const otp = await session().call('getOtp', { id: 2 });
    expect(otp.code).toMatch(/^[0-9]{6}$/);
    expect(otp.expiresIn).toBeGreaterThan(0);
    const error = await failure(session().call('getOtp', { id: 1 }));
    expect(error).toMatchObject({ code: 'not_found', serverMessage: 'OTP not configured for this item' });
  });

  it('maps problems to the core codes with the server words', async () => {
    const alice = session();
    const bob = session({}, BOB);
    expect(
      await failure(alice.call('createItem', { label: 'shared-db', folder_id: 1, password: 'x' })),
    ).toMatchObject({
      code: 'duplicate_label',
      status: 422,
      serverMessage: 'Similar item already exists. Duplicates are not allowed.',
    });
    expect(await failure(bob.call('createItem', { label: 'no', folder_id: 1, password: 'x' }))).toMatchObject(
      {
        code: 'forbidden',
        serverMessage: 'Access denied: folder is read-only',
      },
    );
    expect(await failure(bob.call('deleteItem', { id: 1 }))).toMatchObject({
      code: 'forbidden',
      serverMessage: 'Access denied: insufficient permissions for this action',
    });
    expect(await failure(alice.call('deleteItem', { id: 99_999 }))).toMatchObject({
      code: 'not_found',
      serverMessage: 'Item not found',
    });
    expect(await bob.call('getItem', { id: 2 })).toEqual([]);
    expect(await failure(alice.call('itemsInFolders', { folders: [999] }))).toMatchObject({
      code: 'invalid_request',
      serverMessage: 'Folders are mandatory',
    });
  });

  it('refuses bad input before sending anything', async () => {
    const alice = session();
    const before = fake.requests.length;
    const error = await failure(alice.call('createItem', { label: '', folder_id: 2, password: 'x' }));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(/^item\/create: label: .*nothing was sent\.$/);
    await failure(alice.call('itemsInFolders', { folders: [] }));
    await failure(alice.call('getItem', { id: 0 }));
    expect(fake.requests.length).toBe(before);
  });

  it('reads an empty-body 500 as a server error that says what TeamPass does', async () => {
    // A proxy that labels every request as JSON: TeamPass then dies on the empty body of a GET.
    const labelling: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('content-type', 'application/json');
      return fetch(input, { ...init, headers });
    };
    const alice = session({ fetch: labelling });
    const error = await failure(alice.call('getItem', { id: 1 }));
    expect(error).toMatchObject({ code: 'server', status: 500 });
    expect(error.message).toMatch(/HTTP 500 and an empty body/);
  });

  it('reuses a cached token across sessions, and clears it on dispose', async () => {
    let stored: string | undefined;
    const cache = {
      get: () => stored,
      set: (token: string | undefined) => {
        stored = token;
      },
    };
    const first = session({ teampass3: { tokenCache: cache } });
    await first.call('allTags', {});
    expect(stored).toBeDefined();
    const second = session({ teampass3: { tokenCache: cache } });
    await second.call('allTags', {});
    expect(second.signIns).toBe(0);
    expect(fake.signIns('alice')).toBe(1);
    await second.dispose({ signOut: false });
    expect(stored).toBeDefined();
    const token = stored!;
    await first.dispose();
    expect(stored).toBeUndefined();
    expect(fake.sessions('alice').find((s) => s.token === token)?.revokedAt).toBeDefined();
    expect(await failure(first.call('allTags', {}))).toMatchObject({ code: 'aborted' });
  });

  it('signs in once when the cached token was revoked meanwhile', async () => {
    let stored: string | undefined;
    const cache = {
      get: () => stored,
      set: (token: string | undefined) => {
        stored = token;
      },
    };
    await session({ teampass3: { tokenCache: cache } }).call('allTags', {});
    fake.revokeSessions('alice');
    const later = session({ teampass3: { tokenCache: cache } });
    await expect(later.call('allTags', {})).resolves.toContain('db');
    expect(later.signIns).toBe(1);
    expect(fake.signIns('alice')).toBe(2);
    expect(fake.tokens('alice')).toContain(stored);
  });

  it('never uses a cached token of another login', async () => {
    let stored: string | undefined;
    const cache = {
      get: () => stored,
      set: (token: string | undefined) => {
        stored = token;
      },
    };
    await session({ teampass3: { tokenCache: cache } }, BOB).call('allTags', {});
    const alice = session({ teampass3: { tokenCache: cache } });
    await alice.call('allTags', {});
    expect(alice.signIns).toBe(1);
    expect((await alice.user()).login).toBe('alice');
  });

  it('reads several items one call each, a few at a time, in input order', async () => {
    const alice = session();
    const answers = await alice.callEach('getItem', [{ id: 2 }, { id: 1 }, { id: 99_999 }, { id: 3 }], {
      concurrency: 2,
    });
    expect(answers.map((answer) => answer.map((item) => item.id))).toEqual([[2], [1], [], [3]]);
    expect(fake.signIns('alice')).toBe(1);
  });

  it('lets a cancelled call go while a shared sign-in goes on for the others', async () => {
    const alice = session();
    const controller = new AbortController();
    const cancelled = alice.call('allTags', {}, { signal: controller.signal });
    const other = alice.call('allTags', {});
    controller.abort();
    expect(await failure(cancelled)).toMatchObject({ code: 'aborted' });
    await expect(other).resolves.toContain('db');
    expect(fake.signIns('alice')).toBe(1);
  });

  it('signs out only its own token', async () => {
    const one = session();
    const two = session();
    await one.call('allTags', {});
    await two.call('allTags', {});
    await one.dispose();
    await expect(two.call('allTags', {})).resolves.toContain('db');
    expect(fake.signIns('alice')).toBe(2);
  });

  it('signs in with a personal access token where the site allows it', async () => {
    const token = fake.createPersonalAccessToken('alice');
    const off = await failure(
      session({}, { login: 'alice', personalAccessToken: token }).call('allTags', {}),
    );
    expect(off).toMatchObject({
      code: 'api_disabled',
      serverMessage: 'Login failed. (OAuth2 API access is disabled)',
    });
    fake.configure({ personalAccessTokens: true });
    await expect(
      session({}, { login: 'alice', personalAccessToken: token }).call('allTags', {}),
    ).resolves.toContain('db');
  });
});

/** A caller with `createVaultClient`'s settings, as the adapter makes it. */
function callerAt(options: Omit<VaultClientOptions, 'auth'>, redact: Redactor = (t) => t) {
  return createTeamPass3Caller({ ...settingsOf({ ...options, auth: BOB }), redact });
}

describe('the TeamPass 3 caller', () => {
  it('calls operations with a token it is given', async () => {
    const caller = callerAt({ baseUrl: `${fake.url}/api/index.php` });
    const { token } = await caller.call('authorize', {
      login: 'bob',
      password: BOB.password,
      apikey: BOB.apiKey,
    });
    const folders = await caller.call('writableFolders', {}, { token });
    expect(folders.map((f) => [f.title, f.accessType])).toEqual([['Shared', 'R']]);
  });

  it('reports network failures and timeouts as such', async () => {
    const closed = callerAt({ baseUrl: 'http://127.0.0.1:9', retry: { retries: 1, delayMs: 1 } });
    const error = await failure(closed.call('openApi', {}));
    expect(error.code).toBe('network');
    const stalled = callerAt({
      baseUrl: fake.url,
      timeoutMs: 50,
      fetch: (_input, init) =>
        new Promise((_, reject) =>
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
        ),
    });
    expect((await failure(stalled.call('openApi', {}))).code).toBe('timeout');
  });

  it('reports a timeout as such through a real redactor (fetch rejects with a DOMException, whose code is a number)', async () => {
    const stalled = callerAt(
      {
        baseUrl: fake.url,
        timeoutMs: 50,
        fetch: (_input, init) =>
          new Promise((_, reject) =>
            init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
          ),
      },
      createRedactor(['a-secret']),
    );
    const error = await failure(stalled.call('openApi', {}));
    expect(error.code).toBe('timeout');
    expect(error.message).toBe('openapi.json: the vault did not answer within 50 ms.');
  });

  it('refuses answers larger than the limit', async () => {
    const small = callerAt({ baseUrl: fake.url, maxResponseBytes: 100 });
    expect((await failure(small.call('openApi', {}))).code).toBe('too_large');
  });

  it('reads the keyless OpenAPI document of a TeamPass 3 server', async () => {
    const caller = callerAt({ baseUrl: fake.url });
    expect((await caller.call('openApi', {})).info.title).toBe('TeamPass REST API');
  });
});

describe('secrets', () => {
  it('never appear in errors, request events or redacted text', async () => {
    const token = fake.createPersonalAccessToken('alice');
    fake.configure({ personalAccessTokens: true });
    const scan: unknown[] = [];
    const alice = session();
    await alice.call('getItem', { id: 1 });
    fake.revokeSessions('alice');
    await alice.call('getItem', { id: 1 });
    scan.push(await failure(session({}, { ...ALICE, password: `${ALICE.password}x` }).call('allTags', {})));
    scan.push(
      await failure(
        // A token that differs in its last character (whatever that character is).
        session(
          {},
          { login: 'alice', personalAccessToken: token.replace(/.$/, (last) => (last === '0' ? '1' : '0')) },
        ).call('allTags', {}),
      ),
    );
    fake.clock.advance(120_000); // an empty rate-limit window
    fake.configure({ rateLimitPerMinute: 1 });
    await alice.call('allTags', {});
    scan.push(await failure(session({ retry: { maxRetryAfterMs: 0 } }).call('allTags', {})));
    scan.push(await failure(session({ retry: { rateLimitRetries: 0 } }).call('allTags', {})));
    const pat = session({}, { login: 'alice', personalAccessToken: token });
    fake.configure({ rateLimitPerMinute: 0 });
    await pat.call('allTags', {});
    // A misconfigured proxy in front of TeamPass that echoes requests back in its error pages.
    const echoing: typeof fetch = async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      const headers = new Headers(init?.headers);
      const echo = `<html><pre>${init?.method} ${url}\nAuthorization: ${headers.get('authorization')}\n${String(init?.body ?? '')}</pre></html>`;
      if (url.endsWith('/authorize') && String(init?.body).includes('"password":"wrong'))
        return new Response(echo, { status: 502, headers: { 'content-type': 'text/html' } });
      if (url.endsWith('/authorize')) return fetch(input, init);
      return new Response(echo, { status: 200, headers: { 'content-type': 'text/html' } });
    };
    scan.push(await failure(session({ fetch: echoing }).call('allTags', {})));
    scan.push(
      await failure(
        session({ fetch: echoing, retry: { retries: 0 } }, { ...ALICE, password: 'wrong pass' }).call(
          'allTags',
          {},
        ),
      ),
    );
    const echoed = scan.at(-2) as VaultError;
    expect(echoed.code).toBe('invalid_response');
    expect(echoed.excerpt).toContain('Authorization: Bearer [REDACTED]');
    const secrets = [
      'wrong pass',
      ALICE.password,
      ALICE.apiKey,
      encodeURIComponent(ALICE.password),
      token,
      ...fake.tokens(),
    ];
    const text = JSON.stringify([
      events,
      [...errors, ...scan].map((e) =>
        e instanceof VaultError
          ? {
              ...e.toJSON(),
              issues: e.issues,
              cause: String(e.cause),
              causeCause: String((e.cause as Error | undefined)?.cause),
            }
          : String(e),
      ),
    ]);
    for (const secret of secrets)
      expect(text.includes(secret), `a secret leaked: ${secret.slice(0, 6)}…`).toBe(false);
    for (const held of fake.tokens('alice'))
      expect(alice.redact(`Authorization: Bearer ${held}`)).not.toContain(held);
    expect(alice.redact(`password ${ALICE.password} key ${ALICE.apiKey}`)).toBe(
      'password [REDACTED] key [REDACTED]',
    );
    expect(isVaultError(scan[0], 'unauthorized')).toBe(true);
  });
});
