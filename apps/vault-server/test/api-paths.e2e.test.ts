import { Agent, request } from 'node:http';
import { encodeValue, SERVER_INFO_PATH } from '@vaultline/protocol/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestVault, type TestVault } from '../src/testing.ts';
import { clientOf, expectJsonError, expectNoSecrets, type RawAnswer, rawRequest } from './support/helpers.ts';

// GET requests of the API go straight from node:http to the API pipeline; the Hono app takes the
// rest (POST, and browser calls when CORS is on) and hands them to the same pipeline. Both ways
// must answer alike, log alike and survive the same hostile input.
describe("the API's two ways in: straight from node:http, and through the Hono app", () => {
  const ORIGIN = 'https://vscode.dev';
  const logLines: string[] = [];
  let vault: TestVault;
  let itemIds: number[];
  let folderId: number;

  beforeAll(async () => {
    vault = await startTestVault({ logLines, corsOrigins: [ORIGIN], maxUrlLength: 4_096 });
    const client = clientOf(vault);
    folderId = (await client.addFolder({ folder: { title: 'Two ways' } })).id;
    itemIds = [];
    for (let i = 0; i < 12; i++) {
      const added = await client.addItem({
        item: { label: `way ${i} Zürich 🔑`, password: `pw-way-${i}`, folderId },
      });
      itemIds.push(added.id);
    }
  });

  afterAll(async () => {
    await vault?.close();
    expectNoSecrets(logLines, [vault.adminKey]);
  });

  const key = () => ({ authorization: `Bearer ${vault.adminKey}` });
  const direct = (path: string, headers: Record<string, string> = {}) =>
    rawRequest(vault.url, path, { headers });
  // An Origin sends a GET through the Hono app, for CORS.
  const throughApp = (path: string, headers: Record<string, string> = {}) =>
    rawRequest(vault.url, path, { headers: { ...headers, origin: ORIGIN } });

  const comparable = (answer: RawAnswer) => ({
    status: answer.status,
    body: answer.body,
    type: answer.headers['content-type'],
    cache: answer.headers['cache-control'],
    sniff: answer.headers['x-content-type-options'],
    retryAfter: answer.headers['retry-after'],
  });

  it.each([
    ['a secret read', () => `/api/index.php/read/items/${itemIds[0]};${itemIds[1]}`],
    [
      'a search with a unicode query',
      () => `/api/index.php/find/item/${folderId}/${encodeValue('Zürich 🔑')}`,
    ],
    ['the other prefix', () => `/api/read/folder/${folderId}`],
    ['an id that is not canonical', () => '/api/index.php/read/items/01'],
    ['a hostile id', () => "/api/index.php/read/items/1'%20OR%20'1'='1"],
    ['a dot segment', () => '/api/index.php/read/items/../items/1'],
    ['an extra slash', () => '/api/index.php/read//items/1'],
    ['a missing parameter', () => '/api/index.php/read/items'],
    ['no such operation', () => '/api/index.php/read/everything/1'],
    ['a NUL, percent-encoded', () => '/api/index.php/read/userpw/a%00b'],
  ])('answers %s alike either way', async (_name, path) => {
    const straight = await direct(path(), key());
    const viaApp = await throughApp(path(), key());
    expect(comparable(viaApp)).toEqual(comparable(straight));
    // Framed by its length, not in chunks: one small write per answer.
    expect(straight.headers['content-length']).toBe(String(Buffer.byteLength(straight.body)));
    expect(straight.headers['transfer-encoding']).toBeUndefined();
    expect(straight.headers['access-control-allow-origin']).toBeUndefined();
    expect(viaApp.headers['access-control-allow-origin']).toBe(ORIGIN);
  });

  // The app refuses these before CORS runs (its Node adapter, its URL limit): no CORS header.
  it.each([
    ['a raw backslash', '/api/index.php/read/items/1\\'],
    ['an over-long URL', `/api/index.php/read/items/1?pad=${'x'.repeat(5_000)}`],
  ])('refuses %s alike either way', async (_name, path) => {
    const straight = await direct(path, key());
    expect(straight.status).toBeGreaterThanOrEqual(400);
    expect(comparable(await throughApp(path, key()))).toEqual(comparable(straight));
  });

  it('answers the keyless identification, a missing key and a wrong key alike either way', async () => {
    for (const [path, headers] of [
      [`/api/index.php${SERVER_INFO_PATH}`, {}],
      [`/api/index.php/read/items/${itemIds[0]}`, {}],
      [`/api/index.php/read/items/${itemIds[0]}`, { authorization: 'Bearer vlk_not-a-key' }],
    ] as const) {
      expect(comparable(await throughApp(path, headers))).toEqual(comparable(await direct(path, headers)));
    }
  });

  it('refuses other methods on a GET operation with a clear error', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const answer = await rawRequest(vault.url, `/api/index.php/read/items/${itemIds[0]}`, {
        method,
        headers: key(),
      });
      expect(expectJsonError(answer, 400, 'invalid_request').err).toContain(`received ${method}`);
    }
  });

  it('logs each request once, with its operation and key label, never the key', async () => {
    const requestLines = () => logLines.filter((line) => line.includes('"msg":"request"')).length;
    const path = `/api/index.php/read/items/${itemIds[2]}?apikey=${vault.adminKey}`;
    for (const send of [direct, throughApp]) {
      const before = logLines.length;
      const count = requestLines();
      expect((await send(path)).status).toBe(200);
      expect(requestLines()).toBe(count + 1);
      const line = JSON.parse(logLines.slice(before).find((l) => l.includes('"msg":"request"'))!) as Record<
        string,
        unknown
      >;
      expect(line).toMatchObject({ op: 'read/items', status: 200, addr: '127.0.0.1' });
      expect(typeof line.keyLabel).toBe('string');
      expect(JSON.stringify(line)).not.toContain('pw-way-2');
    }
  });

  it('gives each of many concurrent requests its own answer', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 24 });
    try {
      const answers = await Promise.all(
        Array.from({ length: 96 }, (_, n) => {
          const id = itemIds[n % itemIds.length]!;
          return rawRequest(vault.url, `/api/index.php/read/items/${id}`, { headers: key(), agent }).then(
            (answer) => ({ id, answer }),
          );
        }),
      );
      for (const { id, answer } of answers) {
        expect(answer.status).toBe(200);
        const [item] = JSON.parse(answer.body) as { id: string; pw: string }[];
        expect(item?.id).toBe(String(id));
        expect(item?.pw).toBe(`pw-way-${itemIds.indexOf(id)}`);
      }
    } finally {
      agent.destroy();
    }
  });

  it('keeps serving when clients leave before their answer is written', async () => {
    const url = new URL(vault.url);
    await Promise.all(
      Array.from(
        { length: 40 },
        () =>
          new Promise<void>((resolve) => {
            const req = request({
              host: url.hostname,
              port: url.port,
              path: `/api/index.php/read/items/${itemIds.join(';')}`,
              headers: key(),
            });
            req.on('error', () => resolve());
            req.on('close', () => resolve());
            req.end(() => setImmediate(() => req.destroy()));
          }),
      ),
    );
    const after = await direct(`/api/index.php/read/items/${itemIds[3]}`, key());
    expect(after.status).toBe(200);
    expect(logLines.some((line) => line.includes('request failed'))).toBe(false);
  });
});
