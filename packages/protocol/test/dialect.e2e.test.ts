/**
 * Dialect detection over HTTP: a Vaultline server (the stub; the real server's own test is in
 * apps/vault-server), the TeamPass 2 replay server, the TeamPass 3 fake, TeamPass 3 behind proxies
 * that hide its answer, and inconclusive answers; and the `auto` client that detects once.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDialectProbe, detectDialect, identifyRequestOf } from '../src/dialect.ts';
import { type ReplayServer, startReplayServer } from '../src/testing/teampass-replay-server.ts';
import { startTeamPass3Fake, type TeamPass3Fake } from '../src/testing.ts';
import { createWireClient } from '../src/vault/wire-client.ts';
import { startVaultlineStub, type VaultlineStub } from './vaultline-stub.ts';

const KEY = 'dialectK3yA1b2C3d4E5f6G7h8I9j0K1l2M3n4O';
const ALICE = { login: 'alice', password: 'Al1ce-pw', apiKey: 'aliceKeyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' };

let teampass2: ReplayServer;
let teampass3: TeamPass3Fake;
let vaultline: VaultlineStub;

/** A proxy in front of the TeamPass 3 fake: answers what a rule says, forwards the rest. */
interface Proxy {
  url: string;
  seen: string[];
  rule: ((path: string) => { status: number; type: string; body: string } | 'drop' | undefined) | undefined;
  close(): Promise<void>;
}
let proxy: Proxy;

async function startProxy(target: () => string): Promise<Proxy> {
  const state: Proxy = {
    url: '',
    seen: [],
    rule: undefined,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    state.seen.push(path);
    const answer = state.rule?.(path);
    if (answer === 'drop') {
      req.socket.destroy();
      return;
    }
    if (answer) {
      res.writeHead(answer.status, { 'content-type': answer.type });
      res.end(answer.body);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(
          (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== 'host',
        ),
      );
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      fetch(target() + path, { method: req.method ?? 'GET', headers, ...(body ? { body } : {}) })
        .then(async (response) => {
          res.writeHead(response.status, { 'content-type': response.headers.get('content-type') ?? '' });
          res.end(Buffer.from(await response.arrayBuffer()));
        })
        .catch(() => req.socket.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

beforeAll(async () => {
  teampass2 = await startReplayServer({ apiKey: KEY });
  vaultline = await startVaultlineStub({ apiKey: KEY, features: ['bearer-auth', 'unicode-search'] });
  teampass3 = await startTeamPass3Fake({
    seed: {
      folders: [{ title: 'Shared' }],
      roles: [{ name: 'Devs', folders: { Shared: 'W' } }],
      users: [{ ...ALICE, roles: ['Devs'] }],
      items: [{ id: 1, label: 'db', folder: 'Shared', password: 's3cret' }],
    },
  });
  proxy = await startProxy(() => teampass3.url);
});
afterAll(async () => {
  await Promise.all([teampass2.close(), vaultline.close(), teampass3.close(), proxy.close()]);
});
beforeEach(() => {
  teampass2.reset();
  vaultline.requests.length = 0;
  vaultline.identification = undefined;
  teampass3.resetCounters();
  teampass3.configure({ requireHttps: false });
  proxy.rule = undefined;
  proxy.seen.length = 0;
});

const html = (status: number, body = '<html>proxy</html>') => ({ status, type: 'text/html', body });

describe('detectDialect', () => {
  it('reads a Vaultline server as the legacy dialect, from its identification alone', async () => {
    const found = await detectDialect({ baseUrl: vaultline.url });
    expect(found).toMatchObject({
      detected: true,
      dialect: 'legacy',
      capabilities: { server: 'vaultline', credentials: 'api-key', otherUsers: true, keyTransport: 'header' },
      evidence: 'a Vaultline server identified itself (version 9.9.9)',
    });
    expect(vaultline.requests.map((r) => r.url)).toEqual(['/api/index.php/info/version']);
  });

  it('reads TeamPass 2 as the legacy dialect, from its missing-key error alone', async () => {
    const found = await detectDialect({ baseUrl: `${teampass2.url}/api/index.php` });
    expect(found).toMatchObject({
      detected: true,
      dialect: 'legacy',
      capabilities: { server: 'teampass-compatible', credentials: 'api-key', search: 'restricted' },
    });
    expect(found.evidence).toBe('the legacy identification answered a TeamPass error (HTTP 500)');
    expect(teampass2.identifications).toHaveLength(1);
    expect(teampass2.requests).toHaveLength(0);
  });

  it('reads TeamPass 3 from its 401 problem on the legacy path, keyless and alone', async () => {
    const found = await detectDialect({ baseUrl: teampass3.url });
    expect(found).toMatchObject({
      detected: true,
      dialect: 'teampass3',
      capabilities: { server: 'teampass3', credentials: 'password', files: false, otp: true },
    });
    expect(found.evidence).toBe(
      'the legacy identification answered a TeamPass 3 problem: HTTP 401 "Missing Authorization header"',
    );
    expect(teampass3.requests.map((r) => [r.url, r.headers.authorization])).toEqual([
      ['/api/index.php/info/version', undefined],
    ]);
  });

  it('reads TeamPass 3 that requires HTTPS from its 403 problem', async () => {
    teampass3.configure({ requireHttps: true });
    const found = await detectDialect({ baseUrl: teampass3.url });
    expect(found).toMatchObject({ detected: true, dialect: 'teampass3' });
    expect(found.evidence).toMatch(/HTTP 403 "HTTPS is required/);
  });

  it('asks TeamPass 3 for its OpenAPI document when a proxy hides the legacy path', async () => {
    proxy.rule = (path) => (path.endsWith('/info/version') ? html(404) : undefined);
    const found = await detectDialect({ baseUrl: proxy.url });
    expect(found).toMatchObject({ detected: true, dialect: 'teampass3' });
    expect(found.evidence).toBe('openapi.json is titled "TeamPass REST API"');
    expect(proxy.seen).toEqual(['/api/index.php/info/version', '/api/index.php/openapi.json']);
  });

  it('asks for the OpenAPI document too when the legacy path gets no usable answer', async () => {
    proxy.rule = (path) => (path.endsWith('/info/version') ? html(502) : undefined);
    expect(await detectDialect({ baseUrl: proxy.url })).toMatchObject({
      detected: true,
      dialect: 'teampass3',
    });
  });

  it('detects nothing from a proxy page that hides everything: a page is no identification', async () => {
    proxy.rule = () => html(401, '<html>Basic realm</html>');
    const found = await detectDialect({ baseUrl: proxy.url });
    expect(found).toMatchObject({ detected: false, dialect: undefined, capabilities: undefined });
    expect(found.evidence).toBe("no usable answer (HTTP 401 with a web page, not the API's answer)");
  });

  it.each([
    ['a 502 page everywhere', () => html(502)],
    ['a 429 everywhere', () => ({ status: 429, type: 'application/json', body: '{"error":"slow"}' })],
    ['a dropped connection', () => 'drop' as const],
  ])('is inconclusive for %s', async (_, answer) => {
    proxy.rule = answer;
    const found = await detectDialect({ baseUrl: proxy.url, timeoutMs: 2000 });
    expect(found).toMatchObject({ detected: false, dialect: undefined, capabilities: undefined });
    expect(found.evidence).toMatch(/^no usable answer \((HTTP (502|429)|network)\)$/);
  });

  it('sends no second request when the first got no answer at all', async () => {
    proxy.rule = (path) => (path.endsWith('/info/version') ? 'drop' : undefined);
    expect(await detectDialect({ baseUrl: proxy.url, timeoutMs: 2000 })).toMatchObject({ detected: false });
    expect(proxy.seen).toEqual(['/api/index.php/info/version']);
  });

  it('is inconclusive when nothing listens', async () => {
    const closed = await startProxy(() => teampass3.url);
    await closed.close();
    expect(await detectDialect({ baseUrl: closed.url, timeoutMs: 2000 })).toMatchObject({
      detected: false,
      evidence: 'no usable answer (network)',
    });
  });

  it('keeps a conclusive detection, and an inconclusive one only for a while', async () => {
    let clock = 0;
    proxy.rule = () => html(503);
    const probe = createDialectProbe({
      ...identifyRequestOf({ baseUrl: proxy.url }),
      retryAfterMs: 1000,
      now: () => clock,
    });
    expect((await probe.get()).dialect).toBeUndefined();
    clock = 500;
    expect((await probe.get()).dialect).toBeUndefined();
    expect(proxy.seen).toHaveLength(2);
    proxy.rule = undefined;
    clock = 1500;
    expect((await probe.get()).dialect).toBe('teampass3');
    clock = 1e12;
    await probe.get();
    expect(proxy.seen).toHaveLength(3);
  });
});

describe('createVaultClient with dialect auto', () => {
  it('detects once per client, however many calls, and speaks the dialect found', async () => {
    const legacy = createWireClient({ baseUrl: teampass2.url, auth: KEY });
    await Promise.all([
      legacy.readItems({ ids: [10] }),
      legacy.readItems({ ids: [11] }),
      legacy.capabilities(),
    ]);
    expect(teampass2.identifications).toHaveLength(1);
    const modern = createWireClient({ baseUrl: teampass3.url, auth: ALICE });
    await Promise.all([modern.readItems({ ids: [1] }), modern.getItem(1), modern.capabilities()]);
    expect(teampass3.requests.filter((r) => r.url.endsWith('/info/version'))).toHaveLength(1);
    expect(teampass3.signIns('alice')).toBe(1);
    await modern.dispose();
  });

  it('asks again on refresh with one request, whatever the dialect', async () => {
    const vault = createWireClient({ baseUrl: vaultline.url, auth: KEY });
    await vault.capabilities();
    await vault.capabilities({ refresh: true });
    expect(vaultline.requests).toHaveLength(2);
  });

  it('follows the credentials when the server cannot be told, and says it was not detected', async () => {
    proxy.rule = (path) =>
      path.endsWith('/info/version') || path.endsWith('/openapi.json') ? html(503) : undefined;
    const vault = createWireClient({ baseUrl: proxy.url, auth: ALICE, retry: { retries: 0 } });
    expect(await vault.getItem(1)).toMatchObject({ id: 1, label: 'db' });
    expect(await vault.capabilities()).toMatchObject({ dialect: 'teampass3', detected: false });
    await vault.dispose();
  });

  it('refuses credentials that can sign in to no dialect before sending anything', () => {
    expect(() =>
      createWireClient({ baseUrl: teampass3.url, auth: { login: 'alice', password: 'x' } }),
    ).toThrow(
      /Expected auth to be an API key, a login with its password and the user's API key, or a login with a personal access token: missing apiKey/,
    );
    expect(() => createWireClient({ baseUrl: teampass3.url, auth: {} })).toThrow(
      /Expected auth to be an API key.*: missing apiKey/,
    );
    expect(() => createWireClient({ baseUrl: teampass3.url, auth: KEY, dialect: 'other' as never })).toThrow(
      /dialect of auto, legacy or teampass3/,
    );
    expect(teampass3.requests).toEqual([]);
  });

  it('takes TeamPass 2 as stored with the connection: no identification, the key in the query', async () => {
    const vault = createWireClient({ baseUrl: teampass2.url, auth: KEY, server: 'teampass-compatible' });
    await vault.readItems({ ids: [10, 11] });
    expect(await vault.capabilities()).toMatchObject({
      server: 'teampass-compatible',
      dialect: 'legacy',
      keyTransport: 'query',
      search: 'restricted',
      detected: true,
    });
    expect(teampass2.identifications).toHaveLength(0);
    expect(teampass2.requests.map((request) => request.url)).toEqual([
      `/api/index.php/read/items/10;11?apikey=${KEY}`,
    ]);
  });

  it('treats a forced key transport as the legacy dialect: no probe', async () => {
    const vault = createWireClient({ baseUrl: teampass2.url, auth: KEY, legacy: { keyTransport: 'query' } });
    await vault.readItems({ ids: [10] });
    expect(teampass2.identifications).toHaveLength(0);
  });
});
