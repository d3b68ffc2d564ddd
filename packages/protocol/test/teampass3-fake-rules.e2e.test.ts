/**
 * What the TeamPass 3 fake does beyond the recorded transcript, as TeamPass 3.2.1.5's code does it:
 * the sign-in lockout, personal access tokens, personal folders, ND/NE/NDNE rights, the folder
 * cascade, the rate limit's per-IP bucket, parameter sources and the PHP quirks they bring.
 */

import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { totpAt } from '../src/testing/teampass3/totp.ts';
import { startTeamPass3Fake, type TeamPass3Fake } from '../src/testing.ts';

const USERS = {
  alice: { password: 'alice-pw', apiKey: 'alice-key' },
  bob: { password: 'bob-pw', apiKey: 'bob-key' },
  carol: { password: 'carol-pw', apiKey: 'carol-key' },
} as const;

let fake: TeamPass3Fake;

beforeAll(async () => {
  fake = await startTeamPass3Fake({
    now: Date.UTC(2026, 10, 24, 12, 0, 30),
    seed: {
      folders: [
        {
          id: 1,
          title: 'Shared',
          children: [{ id: 2, title: 'Child', children: [{ id: 3, title: 'Grandchild' }] }],
        },
        { id: 4, title: 'NoDelete' },
        { id: 5, title: 'NoEdit' },
        { id: 6, title: 'AddOnly' },
        { id: 7, title: 'Hidden' },
      ],
      roles: [
        {
          name: 'Team',
          folders: {
            Shared: 'W',
            'Shared/Child': 'W',
            'Shared/Child/Grandchild': 'W',
            NoDelete: 'ND',
            NoEdit: 'NE',
            AddOnly: 'NDNE',
          },
        },
        { name: 'Readers', folders: { NoDelete: 'NE' } },
      ],
      users: [
        { login: 'alice', ...USERS.alice, roles: ['Team'], personalFolder: true, canCreateRootFolder: true },
        { login: 'bob', ...USERS.bob, roles: ['Team', 'Readers'] },
        { login: 'carol', ...USERS.carol, folders: ['Hidden'] },
      ],
      items: [
        { id: 1, label: 'in grandchild', folder: 'Shared/Child/Grandchild', password: 'g' },
        { id: 2, label: 'nd', folder: 'NoDelete', password: 'x' },
        { id: 3, label: 'ne', folder: 'NoEdit', password: 'x' },
        {
          id: 4,
          label: 'hidden',
          folder: 'Hidden',
          password: 'h',
          totp: { secret: 'JBSWY3DPEHPK3PXP', digits: 8 },
        },
      ],
    },
  });
  fake.seed({
    folders: [{ title: 'Notes', parent: '~alice' }],
    items: [{ label: 'mine', folder: '~alice/Notes', password: 'p' }],
  });
});
afterAll(() => fake.close());
beforeEach(() =>
  fake.configure({
    failedSignInsPerLogin: 0,
    failedSignInsPerIp: 30,
    personalAccessTokens: false,
    rateLimitPerMinute: 0,
  }),
);

interface Sent {
  status: number;
  body: unknown;
  headers: Headers;
  text: string;
}

async function send(
  method: string,
  path: string,
  init: { token?: string; json?: unknown; body?: string; headers?: Record<string, string> } = {},
): Promise<Sent> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body: string | null = init.body ?? null;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(`${fake.url}/api/index.php${path}`, { method, headers, body });
  const text = await response.text();
  return {
    status: response.status,
    body: text === '' ? undefined : JSON.parse(text),
    headers: response.headers,
    text,
  };
}

async function signIn(login: keyof typeof USERS, ip?: string): Promise<string> {
  const answer = await send('POST', '/authorize', {
    json: { login, password: USERS[login].password, apikey: USERS[login].apiKey },
    ...(ip ? { headers: { 'x-forwarded-for': ip } } : {}),
  });
  expect(answer.status).toBe(200);
  return (answer.body as { token: string }).token;
}

const detail = (sent: Sent) => (sent.body as { detail?: string } | undefined)?.detail;

describe('sign-in', () => {
  it('locks a login after repeated failures, and lets it in again once the lock is over', async () => {
    fake.configure({ failedSignInsPerLogin: 3, lockMinutes: 10 });
    for (let i = 0; i < 3; i++) {
      const failed = await send('POST', '/authorize', {
        json: { login: 'bob', password: 'nope', apikey: 'bob-key' },
      });
      expect(detail(failed)).toBe('Login failed. (Invalid credentials)');
    }
    const locked = await send('POST', '/authorize', {
      json: { login: 'bob', ...{ password: 'bob-pw', apikey: 'bob-key' } },
    });
    expect([locked.status, detail(locked)]).toEqual([401, 'Login failed. (Account temporarily locked)']);
    fake.clock.advance(10 * 60_000 + 1000);
    await signIn('bob');
  });

  it('counts failures of one login however it is spelled, as its failures table compares logins', async () => {
    fake.configure({ failedSignInsPerLogin: 3, lockMinutes: 10 });
    for (const login of ['ghost<i1>', ' GHOST ', 'Ghóst'])
      expect(detail(await send('POST', '/authorize', { json: { login, password: 'x', apikey: 'y' } }))).toBe(
        'Login failed. (Invalid credentials)',
      );
    const locked = await send('POST', '/authorize', { json: { login: 'ghost', password: 'x', apikey: 'y' } });
    expect(detail(locked)).toBe('Login failed. (Account temporarily locked)');
    fake.clock.advance(10 * 60_000 + 1000);
  });

  it('locks a client IP after repeated failures of any login', async () => {
    fake.configure({ failedSignInsPerIp: 2, trustForwardedFor: true });
    for (const login of ['nobody', 'ghost'])
      await send('POST', '/authorize', {
        json: { login, password: 'x', apikey: 'y' },
        headers: { 'x-forwarded-for': '10.0.0.9' },
      });
    const locked = await send('POST', '/authorize', {
      json: { login: 'carol', password: 'carol-pw', apikey: 'carol-key' },
      headers: { 'x-forwarded-for': '10.0.0.9' },
    });
    expect(detail(locked)).toBe('Login failed. (Account temporarily locked)');
    await signIn('carol', '10.0.0.10');
    fake.configure({ trustForwardedFor: false });
  });

  it('trims the password, so a password with surrounding spaces signs in without them', async () => {
    const answer = await send('POST', '/authorize', {
      json: { login: 'alice', password: '  alice-pw \n', apikey: 'alice-key' },
    });
    expect(answer.status).toBe(200);
    const blank = await send('POST', '/authorize', {
      json: { login: 'alice', password: '   ', apikey: 'alice-key' },
    });
    expect(detail(blank)).toBe('Login failed. (Missing credentials)');
  });

  it('refuses credentials in the URL, and a sign-in by GET', async () => {
    const query = await send('POST', '/authorize?login=alice', {
      json: { login: 'alice', password: 'alice-pw', apikey: 'alice-key' },
    });
    expect([query.status, detail(query)]).toEqual([
      400,
      'Credentials must be sent in request body (application/x-www-form-urlencoded or application/json), not in URL',
    ]);
    const put = await send('PUT', '/authorize');
    expect([put.status, detail(put), put.headers.get('allow')]).toEqual([
      405,
      'Method PUT not supported',
      'POST',
    ]);
  });

  it('accepts personal access tokens once allowed, until they expire', async () => {
    fake.configure({ personalAccessTokens: true });
    const token = fake.createPersonalAccessToken('carol', { expiresInSeconds: 60 });
    const ok = await send('POST', '/authorizeToken', { json: { login: 'carol', token } });
    expect(ok.status).toBe(200);
    const malformed = await send('POST', '/authorizeToken', { json: { login: 'carol', token: 'abc' } });
    expect(detail(malformed)).toBe('Login failed. (Invalid credentials)');
    fake.clock.advance(61_000);
    const expired = await send('POST', '/authorizeToken', { json: { login: 'carol', token } });
    expect(detail(expired)).toBe('Login failed. (Invalid credentials)');
    expect(fake.signIns('carol')).toBeGreaterThan(0);
  });
});

describe('folders and rights', () => {
  it("shows a personal folder to its owner only, under the owner's login", async () => {
    const alice = await signIn('alice');
    const bob = await signIn('bob');
    const mine = (
      (await send('GET', '/folder/writableFolders', { token: alice })).body as {
        label: string;
        is_personal_root: number;
        first_position: number;
      }[]
    ).filter((f) => f.is_personal_root === 1);
    expect(mine).toEqual([expect.objectContaining({ label: 'alice', first_position: 1 })]);
    const bobs = (await send('GET', '/item/get?label=mine', { token: bob })).body;
    expect(bobs).toEqual([]);
    const alices = (await send('GET', '/item/get?label=mine', { token: alice })).body as { perso: number }[];
    expect(alices).toMatchObject([{ perso: 1 }]);
    const created = await send('POST', '/folder/create', {
      token: alice,
      json: { title: 'Private', private: true },
    });
    expect(created.status).toBe(201);
  });

  it('folds several roles into the least permissive right: ND + NE is NDNE', async () => {
    const bob = await signIn('bob');
    const folders = (await send('GET', '/folder/writableFolders', { token: bob })).body as {
      id: number;
      access_type: string;
      can_edit: number;
      can_delete: number;
    }[];
    expect(folders.find((f) => f.id === 4)).toMatchObject({
      access_type: 'NDNE',
      can_edit: 0,
      can_delete: 0,
    });
    expect(folders.find((f) => f.id === 6)).toMatchObject({ access_type: 'NDNE' });
  });

  it('refuses edits in NE folders and deletes in ND folders with their own words', async () => {
    const alice = await signIn('alice');
    const edit = await send('PUT', '/item/update', { token: alice, json: { id: 3, label: 'x' } });
    expect(detail(edit)).toBe('Access denied: you are not allowed to edit items in this folder');
    const remove = await send('DELETE', '/item/delete?id=2', { token: alice });
    expect(detail(remove)).toBe('Access denied: you are not allowed to delete items in this folder');
    const add = await send('POST', '/item/create', {
      token: alice,
      json: {
        label: 'added',
        folder_id: 6,
        password: 'x',
        login: '',
        email: '',
        url: '',
        tags: '',
        anyone_can_modify: 0,
      },
    });
    expect(add.status).toBe(201);
  });

  it("lets a root-folder creator add items to a folder she cannot see (TeamPass's canUseFolder bypass)", async () => {
    const alice = await signIn('alice');
    const add = await send('POST', '/item/create', {
      token: alice,
      json: {
        label: 'sneaky',
        folder_id: 7,
        password: 'x',
        login: '',
        email: '',
        url: '',
        tags: '',
        anyone_can_modify: 0,
      },
    });
    expect(add.status).toBe(201);
    expect(
      (await send('GET', `/item/get?id=${(add.body as { newId: number }).newId}`, { token: alice })).body,
    ).toEqual([]);
  });

  it('deletes a subtree: every folder under it, every item in it', async () => {
    const alice = await signIn('alice');
    const deleted = await send('DELETE', '/folder/delete?id=2', { token: alice });
    expect(deleted.body).toEqual({
      error: false,
      message: 'Folder deleted',
      deleted_folders: [2, 3],
      deleted_items_count: 1,
    });
    expect((await send('GET', '/item/get?id=1', { token: alice })).body).toEqual([]);
    expect(fake.item(1)?.deletedAt).toBeDefined();
    expect(fake.folder(3)).toBeUndefined();
  });

  it('answers the current TOTP code of the fake clock', async () => {
    const carol = await signIn('carol');
    const otp = (await send('GET', '/item/getOtp?id=4', { token: carol })).body as {
      otp_code: string;
      digits: number;
    };
    const now = Math.floor(fake.clock.now() / 1000);
    expect(otp).toMatchObject({
      digits: 8,
      otp_code: totpAt({ secret: 'JBSWY3DPEHPK3PXP', algorithm: 'sha1', digits: 8, period: 30 }, now).code,
    });
  });
});

describe('requests', () => {
  it('dies with an empty 500 on a JSON request without a body, where the action reads parameters', async () => {
    const alice = await signIn('alice');
    const headers = { 'content-type': 'application/json' };
    const get = await send('GET', '/item/get?id=2', { token: alice, headers });
    expect([get.status, get.text, get.headers.get('content-type')]).toEqual([
      500,
      '',
      'application/json; charset=UTF-8',
    ]);
    expect((await send('GET', '/folder/writableFolders', { token: alice, headers })).status).toBe(200);
    const array = await send('GET', '/item/inFolders?folders[]=1', { token: alice });
    expect([array.status, array.text]).toEqual([500, '']);
  });

  it('reads a JSON body before the query, a form only for POST', async () => {
    const alice = await signIn('alice');
    // fetch will not send a GET with a body; curl and node:http will.
    const json = await new Promise<string>((resolve, reject) => {
      const body = JSON.stringify({ id: 2 });
      const req = request(
        `${fake.url}/api/index.php/item/get?id=999`,
        {
          method: 'GET',
          headers: {
            authorization: `Bearer ${alice}`,
            'content-type': 'application/json',
            'content-length': body.length,
          },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => {
            text += chunk.toString();
          });
          res.on('end', () => resolve(text));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(JSON.parse(json)).toMatchObject([{ id: 2 }]);
    const form = await send('PUT', '/item/update?id=3', {
      token: alice,
      body: 'id=2&label=changed',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(detail(form)).toBe('Access denied: you are not allowed to edit items in this folder');
  });

  it('entity-decodes the raw query string before parsing it', async () => {
    const alice = await signIn('alice');
    fake.seed({ items: [{ label: 'Tom & Jerry', folder: 'Shared', password: 'x' }] });
    expect(
      (await send('GET', '/item/get?label=Tom%20%26amp%3B%20Jerry', { token: alice })).body,
    ).toHaveLength(1);
    expect((await send('GET', '/item/get?label=Tom%20&amp;%20Jerry', { token: alice })).body).toEqual([]);
  });

  it('keeps the password when an update sends an empty one', async () => {
    const alice = await signIn('alice');
    fake.seed({ items: [{ id: 50, label: 'keep', folder: 'Shared', password: 'kept' }] });
    expect((await send('PUT', '/item/update', { token: alice, json: { id: 50, password: '' } })).status).toBe(
      200,
    );
    expect(fake.item(50)?.password).toBe('kept');
  });

  it('refuses a duplicate label in any folder, whatever its case', async () => {
    const alice = await signIn('alice');
    fake.seed({ items: [{ label: 'Unique', folder: 'Shared', password: 'x' }] });
    const again = await send('POST', '/item/create', {
      token: alice,
      json: {
        label: 'UNIQUE',
        folder_id: 6,
        password: 'x',
        login: '',
        email: '',
        url: '',
        tags: '',
        anyone_can_modify: 0,
      },
    });
    expect([again.status, detail(again)]).toEqual([
      422,
      'Similar item already exists. Duplicates are not allowed.',
    ]);
  });

  it('counts the rate limit per IP across users', async () => {
    fake.configure({ rateLimitPerMinute: 2, trustForwardedFor: true });
    const headers = { 'x-forwarded-for': '10.1.1.1' };
    const alice = await signIn('alice');
    const carol = await signIn('carol');
    await send('GET', '/item/allTags', { token: alice, headers });
    await send('GET', '/item/allTags', { token: carol, headers });
    const third = await send('GET', '/item/allTags', { token: carol, headers });
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(
      (await send('GET', '/item/allTags', { token: carol, headers: { 'x-forwarded-for': '10.1.1.2' } }))
        .status,
    ).toBe(429);
    fake.configure({ trustForwardedFor: false });
  });

  it('refuses a body larger than it reads, and answers paths outside the API as a web server would', async () => {
    const small = await startTeamPass3Fake({ maxBodyBytes: 10, maxRequestLog: 1 });
    const big = await fetch(`${small.url}/api/index.php/authorize`, {
      method: 'POST',
      body: 'x'.repeat(100),
    });
    expect(big.status).toBe(413);
    expect((await fetch(`${small.url}/index.php`)).status).toBe(404);
    expect(small.requests.map((r) => r.url)).toEqual(['/index.php']);
    await small.close();
  });

  it('README example', async () => {
    const readme = await startTeamPass3Fake({
      seed: {
        folders: [{ title: 'Shared', children: [{ title: 'Sub' }] }, { title: 'DevOnly' }],
        roles: [{ name: 'Devs', folders: { Shared: 'W', 'Shared/Sub': 'R', DevOnly: 'W' } }],
        users: [{ login: 'alice', password: 'pw', apiKey: 'key', roles: ['Devs'], api: { delete: false } }],
        items: [{ label: 'db', folder: 'Shared', password: 's3cret', totp: 'JBSWY3DPEHPK3PXP' }],
      },
    });
    const signInAt = async () => {
      const response = await fetch(`${readme.url}/api/index.php/authorize`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ login: 'alice', password: 'pw', apikey: 'key' }),
      });
      return ((await response.json()) as { token: string }).token;
    };
    const token = await signInAt();
    const read = () =>
      fetch(`${readme.url}/api/index.php/item/get?id=1`, { headers: { authorization: `Bearer ${token}` } });
    expect((await read()).status).toBe(200);
    readme.setApiFlags('alice', { read: false });
    expect((await read()).status).toBe(403);
    readme.setApiFlags('alice', { read: true });
    readme.clock.advance(61 * 60_000);
    expect((await read()).status).toBe(401);
    expect(readme.signIns('alice')).toBe(1);
    await readme.close();
  });

  it('names unknown folders, users and roles in seed errors', () => {
    expect(() => fake.seed({ items: [{ label: 'x', folder: 'Nope', password: 'x' }] })).toThrow(
      'No folder at "Nope".',
    );
    expect(() => fake.setApiFlags('nobody', { read: false })).toThrow('No user "nobody".');
    expect(() => fake.addRole('alice', 'Nope')).toThrow('No role "Nope".');
  });
});
