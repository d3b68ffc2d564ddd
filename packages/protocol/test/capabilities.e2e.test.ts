import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isVaultError, VaultError } from '../src/errors.ts';
import {
  capabilitiesOf,
  createServerProbe,
  identifyServer,
  type KeyAnswer,
} from '../src/legacy/capabilities.ts';
import { type ReplayServer, startReplayServer } from '../src/testing/teampass-replay-server.ts';
import type { RequestEvent } from '../src/transport/transport.ts';
import { createWireClient } from '../src/vault/wire-client.ts';
import { startVaultlineStub, type VaultlineStub } from './vaultline-stub.ts';

const KEY = 'capK3yA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7';
const ALL = ['bearer-auth', 'query-key', 'files', 'unicode-search', 'four-byte-text'];

let teampass: ReplayServer;
let vaultline: VaultlineStub;

beforeAll(async () => {
  teampass = await startReplayServer({ apiKey: KEY });
  vaultline = await startVaultlineStub({ apiKey: KEY, features: ALL, refuseQueryKey: true, maxResults: 500 });
});
afterAll(async () => {
  await teampass.close();
  await vaultline.close();
});
beforeEach(() => {
  teampass.reset();
  vaultline.requests.length = 0;
  vaultline.identification = undefined;
});

describe('server detection', () => {
  it('identifies TeamPass from its missing-key answer to the keyless info/version, once', async () => {
    const vault = createWireClient({ baseUrl: teampass.url, auth: KEY });
    const items = await vault.readItems({ ids: [10] });
    expect(items.map((item) => item.id)).toEqual([10]);
    const capabilities = await vault.capabilities();
    expect(capabilities).toEqual({
      server: 'teampass-compatible',
      dialect: 'legacy',
      credentials: 'api-key',
      otp: false,
      tags: false,
      editTags: 'added',
      urlLookup: false,
      otherUsers: true,
      enforcedRights: false,
      version: undefined,
      features: [],
      keyTransport: 'query',
      search: 'restricted',
      files: 'unknown',
      fourByteText: false,
      maxResults: undefined,
      maxIds: 1000,
      detected: true,
    });
    await vault.readItems({ ids: [11] });
    // One identification for the client's lifetime, keyless, then the key in the query.
    expect(teampass.identifications).toHaveLength(1);
    const [probe] = teampass.identifications;
    expect(probe?.url).toBe('/api/index.php/info/version');
    expect(probe?.headers.authorization).toBeUndefined();
    expect(teampass.requests.map((request) => request.url)).toEqual([
      `/api/index.php/read/items/10?apikey=${KEY}`,
      `/api/index.php/read/items/11?apikey=${KEY}`,
    ]);
  });

  it('answers like TeamPass to the identification: keyless → its missing-key error, HTTP 500', async () => {
    const response = await fetch(`${teampass.url}/api/index.php/info/version`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ err: 'Something happen ... but what ?' });
  });

  it('identifies a Vaultline server and moves the key to the Authorization header', async () => {
    const events: RequestEvent[] = [];
    const vault = createWireClient({
      baseUrl: vaultline.url,
      auth: KEY,
      onRequest: (e) => events.push(e),
    });
    const [item] = await vault.readItems({ ids: [1] });
    expect(item?.label).toBe('Postgres prod');
    expect(await vault.capabilities()).toEqual({
      server: 'vaultline',
      dialect: 'legacy',
      credentials: 'api-key',
      otp: false,
      tags: false,
      editTags: 'replaced',
      urlLookup: false,
      otherUsers: true,
      enforcedRights: false,
      version: '9.9.9',
      features: ALL,
      keyTransport: 'header',
      search: 'full',
      files: true,
      fourByteText: true,
      maxResults: 500,
      maxIds: 1000,
      detected: true,
    });
    const [probe, call] = vaultline.requests;
    expect(probe).toEqual({ url: '/api/index.php/info/version', authorization: undefined });
    expect(call).toEqual({ url: '/api/index.php/read/items/1', authorization: `Bearer ${KEY}` });
    expect(JSON.stringify(events)).not.toContain(KEY);
    expect(events[0]?.url).toBe(`${vaultline.url}/api/index.php/read/items/1`);
  });

  it("takes a Vaultline server's earlier identification back: nothing asked, the key in the header", async () => {
    const vault = createWireClient({
      baseUrl: vaultline.url,
      auth: KEY,
      identification: { server: 'vaultline', version: '1.0.0', features: ALL, maxResults: 500 },
    });
    expect((await vault.readItems({ ids: [1] })).map((item) => item.id)).toEqual([1]);
    expect(vaultline.requests).toEqual([
      { url: '/api/index.php/read/items/1', authorization: `Bearer ${KEY}` },
    ]);
    expect(await vault.capabilities()).toMatchObject({ server: 'vaultline', files: true, maxResults: 500 });
  });

  it("says the server enforces the login's rights when the key is that user's, and keeps the answer", async () => {
    const stub = await startVaultlineStub({ apiKey: KEY, features: ALL, keyLogin: 'alice' });
    try {
      const told: KeyAnswer[] = [];
      const first = createWireClient({
        baseUrl: stub.url,
        auth: { apiKey: KEY, login: 'alice' },
        legacy: { onKeyAnswer: (answer) => told.push(answer) },
      });
      expect(await first.identity()).toMatchObject({ login: 'alice', enforced: true });
      expect(told).toEqual([{ rules: 'vaultline', login: 'alice' }]);
      const other = createWireClient({ baseUrl: stub.url, auth: { apiKey: KEY, login: 'bob' } });
      expect(await other.identity()).toMatchObject({ login: 'bob', enforced: false });
      stub.requests.length = 0;
      const again = createWireClient({
        baseUrl: stub.url,
        auth: { apiKey: KEY, login: 'alice' },
        identification: { server: 'vaultline', version: '9.9.9', features: ALL },
        legacy: { keyAnswer: told[0] },
      });
      expect(await again.identity()).toMatchObject({ login: 'alice', enforced: true });
      expect(stub.requests).toEqual([]);
    } finally {
      await stub.close();
    }
  });

  it('never takes back an identification that would put the key in a URL: the server is asked', async () => {
    for (const identification of [
      { server: 'vaultline' as const, version: '1.0.0', features: ['query-key'] },
      { server: 'teampass' as unknown as 'vaultline', version: '1.0.0', features: ['bearer-auth'] },
    ]) {
      vaultline.requests.length = 0;
      const vault = createWireClient({ baseUrl: vaultline.url, auth: KEY, identification });
      await vault.readItems({ ids: [1] });
      expect(vaultline.requests).toEqual([
        { url: '/api/index.php/info/version', authorization: undefined },
        { url: '/api/index.php/read/items/1', authorization: `Bearer ${KEY}` },
      ]);
    }
  });

  it('keeps the query when the option says so, and the header when forced', async () => {
    const query = createWireClient({ baseUrl: vaultline.url, auth: KEY, legacy: { keyTransport: 'query' } });
    const error = await query.readItems({ ids: [1] }).catch((e: unknown) => e);
    // This server refuses keys in URLs: the forced query fails, and the key is nowhere in the error.
    expect(isVaultError(error, 'unauthorized')).toBe(true);
    expect(JSON.stringify((error as VaultError).toJSON())).not.toContain(KEY);
    expect(String((error as VaultError).message)).not.toContain(KEY);
    expect((await query.capabilities()).keyTransport).toBe('query');

    const header = createWireClient({ baseUrl: teampass.url, auth: KEY, legacy: { keyTransport: 'header' } });
    const refused = await header.readItems({ ids: [10] }).catch((e: unknown) => e);
    // TeamPass reads no header: it answers its missing-key error.
    expect(isVaultError(refused, 'unauthorized')).toBe(true);
    expect(teampass.requests[0]?.url).toBe('/api/index.php/read/items/10');
    expect(teampass.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.stringify((refused as VaultError).toJSON())).not.toContain(KEY);
    expect(teampass.identifications).toHaveLength(0);
  });

  it('uses the query on a Vaultline server without bearer-auth, and 1000 results when unreported', async () => {
    const stub = await startVaultlineStub({ apiKey: KEY, features: ['query-key'], reportMaxResults: false });
    try {
      const vault = createWireClient({ baseUrl: stub.url, auth: KEY });
      await vault.readItems({ ids: [1] });
      expect(stub.requests[1]?.url).toBe(`/api/index.php/read/items/1?apikey=${KEY}`);
      const capabilities = await vault.capabilities();
      expect(capabilities).toMatchObject({
        keyTransport: 'query',
        search: 'restricted',
        files: false,
        fourByteText: false,
        maxResults: 1000,
      });
    } finally {
      await stub.close();
    }
  });

  it('does not keep a failed identification: cautious defaults now, asked again later', async () => {
    let clock = 0;
    vaultline.identification = { status: 503, body: 'starting' };
    const probe = createServerProbe({
      apiRoot: `${vaultline.url}/api/index.php`,
      fetch: globalThis.fetch,
      timeoutMs: 2000,
      keyTransport: 'auto',
      retryAfterMs: 1000,
      now: () => clock,
    });
    const first = await probe.get();
    expect(first).toMatchObject({ server: 'teampass-compatible', keyTransport: 'query', detected: false });
    vaultline.identification = undefined;
    clock = 500;
    expect(await probe.get()).toBe(first);
    clock = 1500;
    expect(await probe.get()).toMatchObject({ server: 'vaultline', keyTransport: 'header', detected: true });
    expect(vaultline.requests.filter((r) => r.url.endsWith('/info/version'))).toHaveLength(2);
    clock = 1e12;
    await probe.get();
    expect(vaultline.requests.filter((r) => r.url.endsWith('/info/version'))).toHaveLength(2);
  });

  it('asks again on refresh, and shares one request between concurrent callers', async () => {
    const vault = createWireClient({ baseUrl: vaultline.url, auth: KEY });
    const [a, b] = await Promise.all([vault.capabilities(), vault.capabilities()]);
    expect(a).toBe(b);
    expect(vaultline.requests).toHaveLength(1);
    await vault.capabilities({ refresh: true });
    expect(vaultline.requests).toHaveLength(2);
  });

  it('treats a dropped connection as inconclusive and a timeout too', async () => {
    teampass.fault({ match: (r) => r.url.endsWith('/info/version'), reply: { destroy: true }, times: 1 });
    const dropped = await identifyServer({
      apiRoot: `${teampass.url}/api/index.php`,
      fetch: globalThis.fetch,
      timeoutMs: 2000,
    });
    expect(dropped).toMatchObject({ answered: false, reason: 'network' });
    teampass.fault({ match: (r) => r.url.endsWith('/info/version'), reply: { delayMs: 400 }, times: 1 });
    const late = await identifyServer({
      apiRoot: `${teampass.url}/api/index.php`,
      fetch: globalThis.fetch,
      timeoutMs: 100,
    });
    expect(late).toEqual({ answered: false, reason: 'timeout' });
  });

  it.each([
    [500, '{"err":"Something happen ... but what ?"}', { answered: true, info: undefined }],
    [405, '{"err":"Method not authorized"}', { answered: true, info: undefined }],
    [200, '{"err":"API access not allowed."}', { answered: true, info: undefined }],
    [404, '<html>not here</html>', { reason: "HTTP 404 with a web page, not the API's answer" }],
    [
      200,
      '<!DOCTYPE html><html>TeamPass</html>',
      { reason: "HTTP 200 with a web page, not the API's answer" },
    ],
    [200, '{"hello":"world"}', { reason: "HTTP 200 with JSON of another shape, not the API's answer" }],
    [200, '{"server":"vaultline"}', { reason: "HTTP 200 with JSON of another shape, not the API's answer" }],
    [401, '', { reason: "HTTP 401 with an empty body, not the API's answer" }],
    [500, 'Internal Server Error', { reason: 'HTTP 500' }],
    [502, '<html>bad gateway</html>', { reason: 'HTTP 502' }],
    [429, '{"error":"slow down"}', { reason: 'HTTP 429' }],
    [408, '', { reason: 'HTTP 408' }],
  ])(
    'reads HTTP %i with %j as %j: only a server that says who it is is identified',
    async (status, body, read) => {
      vaultline.identification = { status, body };
      const result = await identifyServer({
        apiRoot: `${vaultline.url}/api/index.php`,
        fetch: globalThis.fetch,
        timeoutMs: 2000,
      });
      expect(result).toEqual('reason' in read ? { answered: false, status, ...read } : read);
    },
  );

  it('does not read an identification body above 64 KiB (and so identifies nothing)', async () => {
    teampass.fault({
      match: (r) => r.url.endsWith('/info/version'),
      reply: { status: 200, body: 'x'.repeat(70_000), headers: { 'content-length': '70000' } },
    });
    const result = await identifyServer({
      apiRoot: `${teampass.url}/api/index.php`,
      fetch: globalThis.fetch,
      timeoutMs: 2000,
    });
    expect(result).toEqual({
      answered: false,
      status: 200,
      reason: "HTTP 200 with an empty body, not the API's answer",
    });
  });

  it('learns that a server has no file endpoints when add/file answers No results', async () => {
    teampass.fileEndpoints = false;
    const vault = createWireClient({ baseUrl: teampass.url, auth: KEY });
    expect((await vault.capabilities()).files).toBe('unknown');
    expect(await vault.listFiles({ itemId: 10 })).toEqual([]);
    const error = await vault
      .addFile({ itemId: 10, file: new Uint8Array([1]), fileName: 'a.txt' })
      .catch((e: unknown) => e);
    expect(isVaultError(error, 'not_found')).toBe(true);
    expect((error as VaultError).serverMessage).toBe('No results');
    expect((await vault.capabilities()).files).toBe(false);
  });

  it('maps features to capabilities, forced transports included', () => {
    const info = { server: 'vaultline' as const, version: '1', features: ['unicode-search'] };
    expect(capabilitiesOf(info, 'header').keyTransport).toBe('header');
    expect(capabilitiesOf(info, 'auto').keyTransport).toBe('query');
    expect(capabilitiesOf(undefined, 'header').keyTransport).toBe('header');
    expect(capabilitiesOf(undefined).search).toBe('restricted');
    expect(capabilitiesOf(info).search).toBe('full');
  });
});

describe("the server's id limit", () => {
  const ids = (count: number, from = 1) => Array.from({ length: count }, (_, i) => from + i);
  const sizes = (urls: string[]) => urls.map((url) => url.split('?')[0]!.split('/').pop()!.split(';').length);

  it('reads maxIds from the identification: 1000 when unreported, on TeamPass and while unknown', () => {
    const info = { server: 'vaultline' as const, version: '1', features: [] };
    expect(capabilitiesOf({ ...info, maxIds: 250 }).maxIds).toBe(250);
    expect(capabilitiesOf(info).maxIds).toBe(1000);
    expect(capabilitiesOf(undefined).maxIds).toBe(1000);
  });

  it('splits a long id list by the limit a Vaultline server reports, and merges the answers', async () => {
    const stub = await startVaultlineStub({
      apiKey: KEY,
      features: ['bearer-auth'],
      maxIds: 2,
      labels: { 1: 'one', 2: 'two', 3: 'three', 4: 'four', 5: 'five' },
    });
    try {
      const vault = createWireClient({ baseUrl: stub.url, auth: KEY });
      const items = await vault.readItems({ ids: [1, 2, 3, 4, 5] });
      expect(items.map((item) => item.label)).toEqual(['one', 'two', 'three', 'four', 'five']);
      expect((await vault.capabilities()).maxIds).toBe(2);
      expect(stub.requests.map((request) => request.url)).toEqual([
        '/api/index.php/info/version',
        '/api/index.php/read/items/1;2',
        '/api/index.php/read/items/3;4',
        '/api/index.php/read/items/5',
      ]);
      // A forced key transport still asks the server's limit before a call with several ids.
      stub.requests.length = 0;
      const forced = createWireClient({ baseUrl: stub.url, auth: KEY, legacy: { keyTransport: 'header' } });
      expect(await forced.readItems({ ids: [4] })).toHaveLength(1);
      expect(await forced.readItems({ ids: [1, 2, 3] })).toHaveLength(3);
      expect(stub.requests.map((request) => request.url)).toEqual([
        '/api/index.php/read/items/4',
        '/api/index.php/info/version',
        '/api/index.php/read/items/1;2',
        '/api/index.php/read/items/3',
      ]);
    } finally {
      await stub.close();
    }
  });

  it('sends TeamPass at most 1000 ids per call (it has no limit of its own but the URL)', async () => {
    const wanted = ids(1500);
    for (const id of wanted) {
      teampass.items.set(String(10_000 + id), { ...teampass.items.get('10')!, id: String(10_000 + id) });
    }
    try {
      const vault = createWireClient({ baseUrl: teampass.url, auth: KEY });
      const items = await vault.readItems({ ids: wanted.map((id) => 10_000 + id) });
      expect(items).toHaveLength(1500);
      expect(sizes(teampass.requests.map((request) => request.url))).toEqual([1000, 500]);
      // Short ids would all fit one URL: the id limit splits them.
      teampass.reset();
      await vault.readItems({ ids: ids(1500) });
      expect(sizes(teampass.requests.map((request) => request.url))).toEqual([1000, 500]);
    } finally {
      for (const id of wanted) teampass.items.delete(String(10_000 + id));
    }
  });
});

describe('the key never leaks in header mode', () => {
  it('redacts the key from an error body that echoes it', async () => {
    const stub = await startVaultlineStub({ apiKey: 'other-key', features: ALL });
    try {
      const vault = createWireClient({ baseUrl: stub.url, auth: KEY, retry: { retries: 0 } });
      const error = (await vault.readItems({ ids: [1] }).catch((e: unknown) => e)) as VaultError;
      expect(error).toBeInstanceOf(VaultError);
      expect(stub.requests[1]?.authorization).toBe(`Bearer ${KEY}`);
      const text = JSON.stringify(error.toJSON()) + error.message + String(error.stack);
      expect(text).not.toContain(KEY);
    } finally {
      await stub.close();
    }
  });
});
