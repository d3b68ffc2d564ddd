import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REDACTED, VaultError, type VaultErrorCode } from '../src/errors.ts';
import { decodeFolderValues, decodeItemValues } from '../src/legacy/codec.ts';
import {
  ERROR_TABLE,
  NON_JSON_BODIES,
  parseMultipart,
  type ReplayServer,
  type SeenRequest,
  startReplayServer,
} from '../src/testing/teampass-replay-server.ts';
import type { RequestEvent } from '../src/transport/transport.ts';
import type { VaultClientOptions } from '../src/vault/types.ts';
import { createWireClient } from '../src/vault/wire-client.ts';

const KEY = 'tpK3yA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7';

let server: ReplayServer;

beforeAll(async () => {
  server = await startReplayServer({ apiKey: KEY });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

function client(options: Partial<VaultClientOptions> = {}) {
  return createWireClient({
    baseUrl: server.url,
    auth: KEY,
    ...options,
    retry: { delayMs: 5, ...options.retry },
  });
}

async function failure(promise: Promise<unknown>): Promise<VaultError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(VaultError);
    return error as VaultError;
  }
  throw new Error('expected the call to fail');
}

function pathOf(request: SeenRequest | undefined): string {
  return (request?.url ?? '').split('?')[0]!;
}

describe('requests as TeamPass wants them', () => {
  it('puts apikey first and sends the path without percent-encoding ; and =', async () => {
    const vault = client();
    const { id } = await vault.addItem({
      item: {
        label: 'pad=me;',
        password: 'p@ss/w+rd;=%',
        folderId: 1,
        login: 'a',
        url: 'https://x/?q=1&r=2',
      },
    });
    const [seen] = server.requests;
    expect(seen?.method).toBe('GET');
    expect(seen?.url).toMatch(new RegExp(`^/api/index\\.php/add/item/[A-Za-z0-9_=;-]+\\?apikey=${KEY}$`));
    expect(seen?.url).toContain('=;');
    expect(seen?.url).not.toMatch(/%3B|%3D|%2B|%2F/i);
    const segment = pathOf(seen).split('/').pop()!;
    expect(decodeItemValues(segment)).toEqual({
      label: 'pad=me;',
      password: 'p@ss/w+rd;=%',
      description: '',
      folderId: '1',
      login: 'a',
      email: '',
      url: 'https://x/?q=1&r=2',
      tags: '',
      anyoneCanModify: '0',
    });
    expect(server.items.get(String(id))?.pw).toBe('p@ss/w+rd;=%');
  });

  it('sends id lists raw and accepts a base URL that already names the API', async () => {
    for (const baseUrl of [
      server.url,
      `${server.url}/`,
      `${server.url}/api/index.php`,
      `${server.url}/api/`,
    ]) {
      server.reset();
      const items = await createWireClient({ baseUrl, auth: KEY }).readItems({ ids: [11, 10] });
      expect(items.map((item) => item.id)).toEqual([10, 11]);
      expect(server.requests.map((r) => r.url)).toEqual([`/api/index.php/read/items/11;10?apikey=${KEY}`]);
    }
  });

  it('sends folder values as ONE base64url blob, which TeamPass decodes', async () => {
    const vault = client();
    const { id } = await vault.addFolder({
      folder: { title: 'Équipe 🔑 = ops', complexityLevel: 50, parentId: 1, renewalPeriod: 12 },
    });
    const segment = pathOf(server.requests[0]).split('/').pop()!;
    expect(segment).not.toContain(';');
    expect(decodeFolderValues(segment, 5)).toEqual(['Équipe 🔑 = ops', '50', '1', '12', '0']);
    expect(server.folders.get(String(id))).toMatchObject({ title: 'Équipe 🔑 = ops', parent_id: '1' });
    await expect(
      vault.updateFolder({ id, folder: { title: 'Renamed', complexityLevel: 25, renewalPeriod: 0 } }),
    ).resolves.toEqual({ status: 'folder updated' });
    expect(server.folders.get(String(id))?.title).toBe('Renamed');
  });

  it("turns TeamPass's SQL answer to per-value folder encoding into a typed error", async () => {
    const error = await failure(
      client({ legacy: { folderEncoding: 'values' } }).addFolder({ folder: { title: 'T' } }),
    );
    expect(error.code).toBe('invalid_response');
    expect(error.message).toMatch(
      /^add\/folder expected JSON, received a database error \(HTTP 200\): Error: You have/,
    );
  });

  it('percent-encodes only what a URL cannot carry in a login (TeamPass then does not find it)', async () => {
    server.users.set('jean dupont', { rights: { '1': 'R' } });
    const error = await failure(client().readUserFolders({ login: 'jean dupont' }));
    expect(server.requests[0]?.url).toBe(`/api/index.php/read/userfolders/jean%20dupont?apikey=${KEY}`);
    expect(error).toMatchObject({ code: 'not_found', serverMessage: 'User does not exist' });
    server.users.delete('jean dupont');
  });

  it('refuses bad input before sending anything', async () => {
    const vault = client();
    for (const call of [
      vault.readItems({ ids: [] }),
      vault.readItems({ ids: [0] }),
      vault.readItems({ ids: [1.5] }),
      vault.updateItem({ id: -1, item: { label: 'x', password: 'y', folderId: 1 } }),
      vault.readUserItems({ login: '../admin' }),
      vault.findItems({ folderIds: [1], query: 'a#b' }),
      vault.addFolder({ folder: { title: 'a;b' } }),
    ]) {
      expect((await failure(call)).code).toBe('invalid_request');
    }
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a bad base URL, an empty key', () => {
    expect(() => createWireClient({ baseUrl: 'ftp://x', auth: KEY })).toThrow(/http/);
    expect(() => createWireClient({ baseUrl: 'not a url', auth: KEY })).toThrow(VaultError);
    expect(() => createWireClient({ baseUrl: 'http://x/?apikey=1', auth: KEY })).toThrow(/query/);
    // Credentials in the URL would be dropped silently and stay in configs and logs: refused, unechoed.
    const withCredentials = () =>
      createWireClient({ baseUrl: `http://alice:${KEY}@x/api/index.php`, auth: KEY });
    expect(withCredentials).toThrow(/credentials/);
    expect(withCredentials).not.toThrow(new RegExp(KEY));
    expect(() => createWireClient({ baseUrl: 'http://x', auth: '' })).toThrow(/API key/);
  });
});

describe('hostile and unicode values end to end', () => {
  const value = fc.string({ unit: 'grapheme', maxLength: 30 });
  const hostile = fc.oneof(
    value,
    fc.constantFrom(
      ';',
      '/',
      '+',
      '=',
      '%',
      '\n',
      '\0',
      '🔑',
      "'; DROP TABLE items;--",
      '../../etc',
      '%3B%2F',
    ),
  );

  it('round-trips arbitrary item values through add/item, read/items and update/item', async () => {
    const vault = client();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          label: fc.tuple(hostile, hostile).map(([a, b]) => `${a}${b}`),
          password: fc.tuple(hostile, hostile).map(([a, b]) => `p${a}${b}`),
          description: hostile,
          login: hostile,
          email: hostile,
          url: hostile,
        }),
        async (values) => {
          // A unique label each run (TeamPass refuses similar labels); no HTML (TeamPass refuses it).
          const label = `#${run++} ${values.label}`.replace(/</g, '(');
          const item = { ...values, label, description: values.description.replace(/</g, '('), folderId: 2 };
          const { id } = await vault.addItem({ item });
          const read = await vault.getItem(id);
          expect({ ...read, raw: undefined }).toEqual({
            id,
            label,
            password: item.password,
            description: item.description,
            login: item.login,
            email: item.email,
            url: item.url,
            folderId: 2,
            path: ['Team', 'Staging'],
            raw: undefined,
          });
          await vault.updateItemFields(id, { url: `${item.url}🔑` });
          expect((await vault.getItem(id)).url).toBe(`${item.url}🔑`);
          await vault.deleteItems({ ids: [id] });
        },
      ),
      { numRuns: 40 },
    );
    for (const request of server.requests)
      expect(request.url).toMatch(/^\/api\/index\.php\/[a-z]+\/[a-z]+\/[A-Za-z0-9_=;/-]+\?apikey=/);
  });

  it('calls an operation by name and exposes its base URL and redactor', async () => {
    const vault = client();
    expect(vault.baseUrl).toBe(server.url);
    expect(await vault.call('readItems', { ids: [10] })).toEqual(await vault.readItems({ ids: [10] }));
    expect(vault.redact(`x ${KEY} y`)).toBe(`x ${REDACTED} y`);
  });
});

describe('responses in both shapes', () => {
  it('reads arrays and objects keyed by id into the same items', async () => {
    const vault = client();
    const asArray = await vault.readItems({ ids: [10, 11] });
    server.collectionShape = 'objects';
    const asObject = await vault.readItems({ ids: [10, 11] });
    expect(asObject).toEqual(asArray);
    expect(asArray[0]).toMatchObject({
      id: 10,
      label: 'db',
      password: 'pw-db-seeded',
      folderId: 1,
      path: ['Team'],
      url: 'https://db.example.com/?a=1&b=2',
    });
    expect(asArray[1]?.path).toEqual(['Team', 'Staging']);
  });

  it('reads read/userpw and read/userfolders keyed by id, and as arrays', async () => {
    const vault = client();
    const items = await vault.readUserItems({ login: 'alice' });
    const folders = await vault.readUserFolders({ login: 'alice' });
    server.collectionShape = 'arrays';
    expect(await vault.readUserItems({ login: 'alice' })).toEqual(items);
    expect(await vault.readUserFolders({ login: 'alice' })).toEqual(folders);
    expect(items.map((item) => item.id)).toEqual(expect.arrayContaining([10, 11, 12]));
    expect(folders.map((f) => [f.id, f.accessType, f.level, f.parentId])).toEqual([
      [1, 'W', 1, 0],
      [2, 'ND', 2, 1],
    ]);
  });

  it('reads {"err":"No results"} as an empty list on reads and finds', async () => {
    const vault = client();
    expect(await vault.readItems({ ids: [9999] })).toEqual([]);
    expect(await vault.readFolders({ ids: [9999] })).toEqual([]);
    expect(await vault.findItems({ folderIds: [1, 2], query: 'zzz' })).toEqual([]);
    expect(await vault.listFiles({ itemId: 10 })).toEqual([]);
  });

  it('drops items of other folders from read/folder (TeamPass #2718)', async () => {
    const record = (id: string, folder: string) => ({
      id,
      label: `l${id}`,
      description: '',
      login: '',
      email: '',
      url: '',
      pw: '',
      folder_id: folder,
      path: '',
    });
    server.fault({ reply: { body: JSON.stringify([record('1', '2'), record('2', '7'), record('3', '2')]) } });
    expect((await client().readFolders({ ids: [2] })).map((item) => item.id)).toEqual([1, 3]);
  });

  it('reads folder contents and find results', async () => {
    const vault = client();
    expect((await vault.readFolders({ ids: [2] })).map((item) => item.id)).toEqual([11, 12]);
    const found = await vault.findItems({ folderIds: [1, 2], query: 'ca' });
    expect(found.map((item) => [item.id, item.status])).toEqual([[11, 'OK']]);
  });

  it.each(['json', 'text'] as const)('reads the %s delete body as OK', async (body) => {
    server.deleteBody = body;
    const vault = client();
    const { id } = await vault.addItem({ item: { label: `to delete ${body}`, password: 'x', folderId: 1 } });
    expect(await vault.deleteItems({ ids: [id] })).toEqual({ status: 'OK' });
    const folder = await vault.addFolder({ folder: { title: `gone ${body}` } });
    expect(await vault.deleteFolders({ ids: [folder.id] })).toEqual({ status: 'OK' });
    expect(server.folders.has(String(folder.id))).toBe(false);
  });

  it('answers update/item of an unknown id with not_found and the server code', async () => {
    const error = await failure(
      client().updateItem({ id: 424242, item: { label: 'x', password: 'y', folderId: 1 } }),
    );
    expect(error).toMatchObject({
      code: 'not_found',
      serverMessage: 'No data exists',
      serverCode: 'NO_DATA_EXIST',
    });
  });

  it('answers a duplicate label, a missing folder, an unknown user like TeamPass', async () => {
    const vault = client();
    expect((await failure(vault.addItem({ item: { label: 'DB ', password: 'x', folderId: 1 } }))).code).toBe(
      'duplicate_label',
    );
    expect(
      (await failure(vault.addItem({ item: { label: 'new', password: 'x', folderId: 777 } }))).code,
    ).toBe('not_found');
    expect((await failure(vault.addItem({ item: { label: 'new', password: '', folderId: 1 } }))).code).toBe(
      'invalid_request',
    );
    expect((await failure(vault.readUserItems({ login: 'nobody' }))).code).toBe('not_found');
    expect((await failure(vault.findItems({ folderIds: [1], query: '0' }))).code).toBe('server');
  });
});

describe('the error table of the notes', () => {
  const expected: Record<keyof typeof ERROR_TABLE, VaultErrorCode> = {
    apiDisabled: 'api_disabled',
    ipNotAllowed: 'forbidden',
    apiKeyMissing: 'unauthorized',
    wrongKey: 'unauthorized',
    methodNotAuthorized: 'invalid_request',
    unknownObjectEmpty: 'invalid_response',
    urlFormat: 'invalid_request',
    itemNotComplete: 'invalid_request',
    itemNotNumeric: 'invalid_request',
    noResults: 'not_found',
    labelExists: 'duplicate_label',
    fieldMissing: 'invalid_request',
    passwordTooLong: 'too_large',
    passwordEmpty: 'invalid_request',
    folderMissing: 'not_found',
    noDataExists: 'not_found',
    userMissing: 'not_found',
    htmlTags: 'invalid_request',
    numericTitle: 'invalid_request',
    complexity: 'invalid_request',
    noFolderSpecified: 'invalid_request',
    noParameters: 'invalid_request',
  };

  it.each(Object.entries(ERROR_TABLE) as [keyof typeof ERROR_TABLE, { status: number; body: string }][])(
    '%s → the right code, on a write (one request) and on a read',
    async (row, { status, body }) => {
      const reply = { status, body: body.replace('<key>', KEY) };
      server.fault({ reply });
      const vault = client({ retry: { retries: 1 } });
      const write = await failure(vault.addItem({ item: { label: 'x', password: 'y', folderId: 1 } }));
      expect(write.code).toBe(expected[row]);
      expect(write.status).toBe(status);
      expect(server.requests).toHaveLength(1);
      if (row === 'noResults') {
        expect(await vault.readUserItems({ login: 'alice' })).toEqual([]);
      } else {
        const read = await failure(vault.readUserItems({ login: 'alice' }));
        expect(read.code).toBe(expected[row]);
        const message = JSON.parse(body || '{"err":""}').err as string;
        if (message) expect(read.serverMessage).toBe(message.replace('<key>', REDACTED));
      }
    },
  );

  it('answers the real wrong-key echo with unauthorized and no key anywhere', async () => {
    const wrong = 'wr0ngKeyThatTheServerEchoesBack0123456789';
    const error = await failure(
      createWireClient({ baseUrl: server.url, auth: wrong }).readItems({ ids: [10] }),
    );
    expect(error).toMatchObject({ code: 'unauthorized', status: 405, serverCode: 'API_KEY_NOT_FOUND' });
    expect(error.serverMessage).toBe(`This api_key ${REDACTED} doesn't exist`);
    expect(JSON.stringify(error)).not.toContain(wrong);
    expect(server.requests[0]?.url).toContain(wrong);
  });

  it('answers a URL whose apikey is not first like TeamPass does', async () => {
    const response = await fetch(`${server.url}/api/index.php/read/items/1?x=1&apikey=${KEY}`);
    expect(await response.text()).toBe(ERROR_TABLE.urlFormat.body);
  });
});

describe('bodies that are not JSON', () => {
  it.each([
    ['sql', 'a database error', 'Error: You have an error in your SQL syntax'],
    ['empty', 'an empty body', ''],
    ['html', 'an HTML page', '<br /> <b>Fatal error</b>: Uncaught Error'],
  ] as const)('turns the %s body into invalid_response with a short excerpt', async (kind, what, start) => {
    server.fault({ reply: { body: NON_JSON_BODIES[kind] } });
    const error = await failure(client().readItems({ ids: [10] }));
    expect(error.code).toBe('invalid_response');
    expect(error.status).toBe(200);
    expect(error.message).toContain(`read/items expected JSON, received ${what} (HTTP 200)`);
    expect(error.excerpt?.startsWith(start)).toBe(true);
    expect(error.excerpt?.length).toBeLessThanOrEqual(161);
    expect(error.excerpt).not.toContain('\n');
  });

  it('answers read/userpw of a user without roles (SQL text + blob) with a typed error', async () => {
    const error = await failure(client().readUserItems({ login: 'norole' }));
    expect(error.code).toBe('invalid_response');
    expect(error.excerpt).toMatch(/^Error: You have an error in your SQL syntax.{100,}…$/);
  });

  it('redacts the key from an excerpt', async () => {
    server.fault({ reply: { body: `<html>Warning: api key ${KEY} in /var/www</html>` } });
    const error = await failure(client().readItems({ ids: [10] }));
    expect(error.excerpt).toBe(`<html>Warning: api key ${REDACTED} in /var/www</html>`);
    expect(error.message).not.toContain(KEY);
  });
});

describe('slow and huge answers', () => {
  it('fails with timeout when the headers are late, without retrying a write', async () => {
    server.fault({ reply: { delayMs: 5_000, body: '{"status":"OK"}' } });
    const started = performance.now();
    const error = await failure(client({ timeoutMs: 500 }).deleteItems({ ids: [1] }));
    expect(error.code).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(4_000);
    expect(server.requests).toHaveLength(1);
  });

  it('fails with timeout when the body stalls', async () => {
    server.fault({ reply: { body: '[{"id":"1","label":"x"}]', stallAfterBytes: 5 } });
    const error = await failure(client({ timeoutMs: 500, retry: { retries: 0 } }).readItems({ ids: [1] }));
    expect(error.code).toBe('timeout');
    expect(error.message).toMatch(/body did not arrive within 500 ms/);
  });

  it('fails with timeout under a caller signal too', async () => {
    server.fault({ reply: { delayMs: 5_000, body: '[]' } });
    const error = await failure(
      client({ timeoutMs: 500, retry: { retries: 0 } }).readItems(
        { ids: [1] },
        { signal: new AbortController().signal },
      ),
    );
    expect(error.code).toBe('timeout');
  });

  it('fails with too_large on a declared Content-Length above maxResponseBytes', async () => {
    server.fault({ reply: { body: `[${'"x",'.repeat(2_000)}"x"]` } });
    const error = await failure(client({ maxResponseBytes: 1_000 }).readItems({ ids: [1] }));
    expect(error.code).toBe('too_large');
    expect(error.message).toMatch(/larger than the limit of 1000 bytes/);
  });

  it('fails with too_large on a streamed body that grows past maxResponseBytes', async () => {
    server.fault({ reply: { streamBytes: 8 * 1024 * 1024 } });
    const error = await failure(client({ maxResponseBytes: 256 * 1024 }).readItems({ ids: [1] }));
    expect(error.code).toBe('too_large');
    expect(error.status).toBe(200);
  });
});

describe('retries', () => {
  it('retries a read on 5xx with a growing backoff, then succeeds', async () => {
    server.fault({ reply: { status: 503, body: '' }, times: 2 });
    const items = await client({ retry: { retries: 2, delayMs: 40 } }).readItems({ ids: [10] });
    expect(items.map((item) => item.id)).toEqual([10]);
    const [a, b, c] = server.requests.map((request) => request.at);
    expect(server.requests).toHaveLength(3);
    expect(b! - a!).toBeGreaterThanOrEqual(35);
    expect(c! - b!).toBeGreaterThanOrEqual(75);
  });

  it('gives up after the configured retries with the last answer', async () => {
    server.fault({ reply: { status: 500, body: '<html>oops</html>' } });
    const error = await failure(client({ retry: { retries: 2 } }).readItems({ ids: [10] }));
    expect(error).toMatchObject({ code: 'server', status: 500 });
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a read that ran out of time, nor wait before failing it', async () => {
    server.fault({ reply: { delayMs: 1500 }, times: 1 });
    const started = performance.now();
    const vault = client({ timeoutMs: 300, retry: { retries: 2, delayMs: 3000 } });
    const error = await failure(vault.readItems({ ids: [10] }));
    expect(error.code).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(3000);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a read after a dropped connection', async () => {
    server.fault({ reply: { destroy: true }, times: 1 });
    const items = await client({ retry: { retries: 2 } }).readItems({ ids: [10] });
    expect(items).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a read on 429 as on a 5xx: waits it out, within rateLimitRetries', async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    server.fault({ reply: { status: 429, body: '{"err":"Too many requests"}' } });
    const error = await failure(client({ retry: { retries: 0 }, clock: { sleep } }).readItems({ ids: [10] }));
    expect(error.code).toBe('rate_limited');
    expect(error.message).toMatch(/still limited after 2 waits\.$/);
    expect(server.requests).toHaveLength(3);
    expect(waits).toEqual([1000, 1000]);
    server.reset();
    server.fault({ reply: { status: 429, body: '{"err":"Too many requests"}' } });
    const once = client({ retry: { retries: 2, rateLimitRetries: 0 } });
    expect((await failure(once.readItems({ ids: [10] }))).code).toBe('rate_limited');
    expect(server.requests).toHaveLength(1);
  });

  it('waits out a 429 for as long as its Retry-After asks, then answers (reads and writes)', async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    const vault = client({ clock: { sleep } });
    const limited = { status: 429, body: '{"err":"Too many requests"}', headers: { 'retry-after': '2' } };
    server.fault({ reply: limited, times: 1 });
    expect(await vault.readItems({ ids: [10] })).toHaveLength(1);
    server.fault({ reply: limited, times: 1 });
    await vault.addFolder({ folder: { title: 'after a wait' } });
    expect(waits).toEqual([2000, 2000]);
    const operations = server.requests.map((request) => request.url.split('/').slice(3, 5).join('/'));
    expect(operations).toEqual(['read/items', 'read/items', 'add/folder', 'add/folder']);
  });

  it('fails at once on a 429 that asks for a longer wait than maxRetryAfterMs', async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    server.fault({
      reply: { status: 429, body: '{"err":"Too many requests"}', headers: { 'retry-after': '31' } },
    });
    const error = await failure(client({ clock: { sleep } }).readItems({ ids: [10] }));
    expect(error).toMatchObject({ code: 'rate_limited', retryAfterMs: 31_000 });
    expect(error.message).toMatch(/not waited: the wait asked is longer than the 30 s this client waits\./);
    expect(waits).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it("keeps the wait a 429's Retry-After asks for, in seconds or as a date", async () => {
    server.fault({
      reply: { status: 429, body: '{"err":"Too many requests"}', headers: { 'retry-after': '17' } },
      times: 1,
    });
    // Not waited (maxRetryAfterMs 0): the error keeps the wait asked for.
    const seconds = await failure(client({ retry: { maxRetryAfterMs: 0 } }).readItems({ ids: [10] }));
    expect(seconds).toMatchObject({ code: 'rate_limited', status: 429, retryAfterMs: 17_000 });
    expect(seconds.toJSON()).toMatchObject({ retryAfterMs: 17_000 });
    const at = new Date(Date.now() + 60_000).toUTCString();
    server.fault({
      reply: { status: 429, body: '{"err":"Too many requests"}', headers: { 'retry-after': at } },
      times: 1,
    });
    const date = await failure(client({ retry: { maxRetryAfterMs: 0 } }).readItems({ ids: [10] }));
    expect(date.retryAfterMs).toBeGreaterThan(55_000);
    expect(date.retryAfterMs).toBeLessThanOrEqual(60_000);
    server.fault({ reply: { status: 429, body: '{"err":"Too many requests"}' } });
    const unsaid = client({ retry: { maxRetryAfterMs: 0 } });
    expect((await failure(unsaid.readItems({ ids: [10] }))).retryAfterMs).toBeUndefined();
  });

  it.each([
    [
      'addItem',
      (vault: ReturnType<typeof client>) =>
        vault.addItem({ item: { label: 'r', password: 'p', folderId: 1 } }),
    ],
    [
      'updateItem',
      (vault: ReturnType<typeof client>) =>
        vault.updateItem({ id: 10, item: { label: 'r', password: 'p', folderId: 1 } }),
    ],
    ['deleteItems', (vault: ReturnType<typeof client>) => vault.deleteItems({ ids: [1, 2] })],
    ['addFolder', (vault: ReturnType<typeof client>) => vault.addFolder({ folder: { title: 'r' } })],
    ['deleteFolders', (vault: ReturnType<typeof client>) => vault.deleteFolders({ ids: [1] })],
    [
      'addFile',
      (vault: ReturnType<typeof client>) =>
        vault.addFile({ itemId: 10, file: new Uint8Array([1]), fileName: 'a' }),
    ],
  ] as const)('never retries the write %s: one hit on a 500, one on a dropped connection', async (_, run) => {
    const vault = client({ retry: { retries: 3 } });
    server.fault({ reply: { status: 500, body: '' } });
    expect((await failure(run(vault))).code).toBe('server');
    expect(server.requests).toHaveLength(1);
    server.reset();
    server.fault({ reply: { destroy: true } });
    expect((await failure(run(vault))).code).toBe('network');
    expect(server.requests).toHaveLength(1);
  });

  it('reports network when nothing listens', async () => {
    const closed = await startReplayServer({ apiKey: KEY });
    const url = closed.url;
    await closed.close();
    const error = await failure(
      createWireClient({ baseUrl: url, auth: KEY, retry: { retries: 0 } }).readItems({ ids: [1] }),
    );
    expect(error.code).toBe('network');
    expect(error.status).toBeUndefined();
    expect(error.message).toMatch(
      /could not reach the vault \(ECONNREFUSED\) to identify it; the key was not sent/,
    );
  });
});

describe('URL length limits', () => {
  it('splits a long id list so no URL exceeds maxUrlLength, and merges the answers', async () => {
    const maxUrlLength = 160;
    const ids = Array.from({ length: 120 }, (_, i) => 1000 + i).concat([10, 11]);
    const items = await client({ legacy: { maxUrlLength } }).readItems({ ids });
    expect(items.map((item) => item.id)).toEqual([10, 11]);
    expect(server.requests.length).toBeGreaterThan(5);
    const sent: number[] = [];
    for (const request of server.requests) {
      expect(Buffer.byteLength(server.url + request.url)).toBeLessThanOrEqual(maxUrlLength);
      expect(request.url).toMatch(new RegExp(`\\?apikey=${KEY}$`));
      sent.push(...pathOf(request).split('/').pop()!.split(';').map(Number));
    }
    expect(sent).toEqual(ids);
  });

  it('keeps the default limit at 8 KiB', async () => {
    const ids = Array.from({ length: 3_000 }, (_, i) => 100_000 + i);
    await client().readItems({ ids });
    expect(server.requests.length).toBe(3);
    for (const request of server.requests)
      expect(Buffer.byteLength(server.url + request.url)).toBeLessThanOrEqual(8192);
  });

  it('fails a write whose URL is too long with too_large before sending', async () => {
    const error = await failure(
      client().addItem({
        item: { label: 'big', password: 'p', folderId: 1, description: 'é'.repeat(4_000) },
      }),
    );
    expect(error.code).toBe('too_large');
    expect(error.message).toMatch(/above the limit of 8192/);
    expect(server.requests).toHaveLength(0);
  });

  it('fails with too_large when one id alone is too long for the limit', async () => {
    const error = await failure(client({ legacy: { maxUrlLength: 60 } }).readItems({ ids: [1] }));
    expect(error.code).toBe('too_large');
    expect(server.requests).toHaveLength(0);
  });

  it('deletes folders four per call', async () => {
    const vault = client();
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) ids.push((await vault.addFolder({ folder: { title: `batch ${i}` } })).id);
    server.reset();
    expect(await vault.deleteFolders({ ids })).toEqual({ status: 'OK' });
    expect(server.requests.map((request) => pathOf(request).split('/').pop()!.split(';').length)).toEqual([
      4, 4, 2,
    ]);
    for (const id of ids) expect(server.folders.has(String(id))).toBe(false);
  });
});

describe('read-merge-write helpers', () => {
  it('updateItemFields reads the item, then sends all nine values with the change', async () => {
    const vault = client();
    const { id } = await vault.addItem({
      item: {
        label: 'merge me',
        password: 'old-pw',
        folderId: 2,
        login: 'bob',
        email: 'b@x.io',
        url: 'u',
        description: 'd',
      },
    });
    server.reset();
    expect(await vault.updateItemFields(id, { password: 'new;pw=', tags: ['a', 'b'] })).toEqual({
      status: 'item updated',
    });
    expect(server.requests.map((request) => pathOf(request).split('/').slice(3, 5).join('/'))).toEqual([
      'read/items',
      'update/item',
    ]);
    const [, , , , , itemId, segment] = pathOf(server.requests[1]).split('/');
    expect(itemId).toBe(String(id));
    expect(decodeItemValues(segment!)).toEqual({
      label: 'merge me',
      password: 'new;pw=',
      description: 'd',
      folderId: '2',
      login: 'bob',
      email: 'b@x.io',
      url: 'u',
      tags: 'a b',
      anyoneCanModify: '0',
    });
    expect(server.items.get(String(id))).toMatchObject({ pw: 'new;pw=', login: 'bob', description: 'd' });
  });

  it('updateItemFields refuses when the vault returned an empty password, unless one is given', async () => {
    const vault = client();
    const error = await failure(vault.updateItemFields(12, { label: 'renamed' }));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(/did not return item 12's password/);
    expect(server.requests.map((request) => pathOf(request))).toEqual(['/api/index.php/read/items/12']);
    await vault.updateItemFields(12, { label: 'personal', password: 'set-now' });
    expect(server.items.get('12')?.pw).toBe('set-now');
    server.items.get('12')!.pw = '';
  });

  it('getItem returns one item, or not_found', async () => {
    const vault = client();
    expect((await vault.getItem(11)).label).toBe('cache');
    expect((await failure(vault.getItem(5555))).code).toBe('not_found');
    expect((await failure(vault.updateItemFields(5555, { label: 'x' }))).code).toBe('not_found');
  });
});

describe('attachments', () => {
  it('uploads multipart fields item_id and file with its filename, lists and downloads it', async () => {
    const vault = client();
    const bytes = new Uint8Array([0, 1, 2, 255, 254, 10, 13]);
    expect(
      await vault.addFile({
        itemId: 10,
        file: bytes,
        fileName: 'cert é.pem',
        contentType: 'application/x-pem-file',
      }),
    ).toEqual({
      status: 'success',
      id: undefined,
    });
    const [upload] = server.requests;
    expect(upload?.method).toBe('POST');
    expect(upload?.url).toBe(`/api/index.php/add/file?apikey=${KEY}`);
    expect(upload?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const form = await parseMultipart(upload!);
    expect(form.get('item_id')).toBe('10');
    const file = form.get('file') as File;
    expect(file.name).toBe('cert é.pem');
    expect(file.type).toBe('application/x-pem-file');
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);

    const [listed] = await vault.listFiles({ itemId: 10 });
    expect(listed).toMatchObject({
      name: 'cert é.pem',
      type: 'application/x-pem-file',
      extension: 'pem',
      size: 7,
    });
    const downloaded = await vault.downloadFile({ id: listed!.id });
    expect(downloaded.bytes).toEqual(bytes);
    expect(downloaded.contentType).toBe('application/x-pem-file');
    expect(downloaded.fileName).toBe('cert é.pem');
  });

  it('uploads a Blob as it is', async () => {
    const vault = client();
    await vault.addFile({ itemId: 11, file: new Blob(['hello'], { type: 'text/plain' }), fileName: 'a.txt' });
    const stored = [...server.files.values()].find((file) => file.itemId === '11');
    expect(stored).toMatchObject({ name: 'a.txt', type: 'text/plain' });
    expect(stored?.bytes.toString()).toBe('hello');
  });

  it("reads the fork's error answer to add/file", async () => {
    const error = await failure(client().addFile({ itemId: 9999, file: new Uint8Array([1]), fileName: 'x' }));
    expect(error).toMatchObject({ code: 'not_found', serverMessage: 'Item does not exist' });
  });

  it('fails a download that answers JSON: TeamPass releases say No results', async () => {
    expect((await failure(client().downloadFile({ id: 4242 }))).code).toBe('not_found');
  });

  it('returns an attachment that is itself JSON as bytes', async () => {
    server.fault({ reply: { body: '{"status":"weird","list":[1]}' } });
    const file = await client().downloadFile({ id: 4242 });
    expect(new TextDecoder().decode(file.bytes)).toBe('{"status":"weird","list":[1]}');
  });

  it('reads a file name given as filename*', async () => {
    server.fault({
      reply: {
        body: 'abc',
        headers: {
          'content-type': 'text/plain',
          'content-disposition': "attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.txt",
        },
      },
      times: 1,
    });
    expect((await client().downloadFile({ id: 1 })).fileName).toBe('résumé.txt');
    server.fault({ reply: { body: 'abc', headers: { 'content-type': 'text/plain' } }, times: 1 });
    expect((await client().downloadFile({ id: 1 })).fileName).toBeUndefined();
  });
});

describe('request events', () => {
  it('reports every exchange, redacted: no key, no write values', async () => {
    const events: RequestEvent[] = [];
    const vault = client({ onRequest: (event) => events.push(event), retry: { retries: 0 } });
    await vault.addItem({ item: { label: 'evented', password: 'event-secret-pw', folderId: 1 } });
    await vault.readItems({ ids: [10] });
    server.fault({ reply: { status: 500, body: '' } });
    await failure(vault.readItems({ ids: [10] }));
    expect(events.map((event) => [event.endpoint, event.method, event.errorCode])).toEqual([
      ['addItem', 'GET', undefined],
      ['readItems', 'GET', undefined],
      ['readItems', 'GET', 'server'],
    ]);
    expect(events[0]?.url).toBe(`${server.url}/api/index.php/add/item/${REDACTED}?apikey=${REDACTED}`);
    expect(events[1]?.url).toBe(`${server.url}/api/index.php/read/items/10?apikey=${REDACTED}`);
    expect(events[0]?.status).toBe(200);
    expect(events[2]?.status).toBe(500);
    const text = JSON.stringify(events);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('event-secret-pw');
    expect(text).not.toContain(Buffer.from('event-secret-pw').toString('base64url'));
  });
});

describe('cancellation', () => {
  it('fails with aborted when the caller aborts', async () => {
    server.fault({ reply: { delayMs: 2_000, body: '[]' } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = performance.now();
    const error = await failure(client().readItems({ ids: [10] }, { signal: controller.signal }));
    expect(error.code).toBe('aborted');
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(server.requests).toHaveLength(1);
  });

  it('fails with aborted on a signal aborted before the call', async () => {
    const error = await failure(client().deleteItems({ ids: [1] }, { signal: AbortSignal.abort() }));
    expect(error.code).toBe('aborted');
  });
});
