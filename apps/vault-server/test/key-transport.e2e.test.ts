import {
  createOpenApiDocument,
  createWireClient,
  endpoints,
  OPENAPI_DOCUMENT_PATH,
  SERVER_FEATURES,
  SERVER_INFO_PATH,
  ServerInfoSchema,
} from '@vaultline/protocol/wire';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestVault, type TestVault } from '../src/testing.ts';
import { clientOf, expectJsonError, expectNoSecrets, rawRequest, TEST_OPERATOR } from './support/helpers.ts';

describe('the API key in a header, keys in URLs refused on demand, and the identification', () => {
  let open: TestVault;
  let strict: TestVault;
  const logLines: string[] = [];

  beforeAll(async () => {
    open = await startTestVault({ logLines });
    strict = await startTestVault({ logLines, queryKeys: 'refuse' });
    await open.admin.createUser({ login: 'header-user' });
    await strict.admin.createUser({ login: 'header-user' });
  });

  afterAll(async () => {
    await open?.close();
    await strict?.close();
    expectNoSecrets(logLines, [open.adminKey, strict.adminKey]);
  });

  const folders = '/api/index.php/read/userfolders/header-user';

  it('identifies itself without a key, under both prefixes', async () => {
    for (const prefix of ['/api/index.php', '/api']) {
      const answer = await rawRequest(open.url, prefix + SERVER_INFO_PATH);
      expect(answer.status).toBe(200);
      expect(answer.contentType).toMatch(/application\/json/);
      expect(answer.headers['cache-control']).toBe('no-store');
      const info = v.parse(ServerInfoSchema, JSON.parse(answer.body));
      expect(info.server).toBe('vaultline');
      expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
      expect([...info.features].sort()).toEqual([...SERVER_FEATURES].sort());
      expect(info.maxResults).toBe(1000);
      expect(info.maxIds).toBe(1000);
    }
    const strictInfo = v.parse(
      ServerInfoSchema,
      JSON.parse((await rawRequest(strict.url, `/api/index.php${SERVER_INFO_PATH}`)).body),
    );
    expect(strictInfo.features).toContain('bearer-auth');
    expect(strictInfo.features).not.toContain('query-key');
  });

  it('takes more ids than its limit from the protocol client, which splits them by the limit it reports', async () => {
    const { id: folderId } = await clientOf(open).addFolder({
      folder: { title: 'many ids', complexityLevel: 0 },
    });
    const ids = await open.admin.addItems(
      Array.from({ length: 1500 }, (_, i) => ({
        label: `many ids ${i}`,
        password: `pw-${i}`,
        description: '',
        folderId: String(folderId),
        login: '',
        email: '',
        url: '',
        tags: '',
        anyoneCanModify: '0',
      })),
    );
    const from = logLines.length;
    const items = await clientOf(open).readItems({ ids });
    expect(items.map((item) => item.id)).toEqual(ids);
    const reads = logLines
      .slice(from)
      .map((line) => JSON.parse(line) as { msg?: string; op?: string; status?: number })
      .filter((entry) => entry.msg === 'request' && entry.op === 'read/items');
    expect(reads.map((entry) => entry.status)).toEqual([200, 200]);
    // One call over the limit is refused with the limit in its words.
    const over = await rawRequest(open.url, `/api/index.php/read/items/${ids.join(';')}`, {
      headers: { authorization: `Bearer ${open.adminKey}` },
    });
    expect(over.status).toBe(400);
    expect(over.body).toContain('at most 1000 ids');
  });

  it('accepts Authorization: Bearer as well as ?apikey=', async () => {
    const viaHeader = await rawRequest(open.url, folders, {
      headers: { authorization: `Bearer ${open.adminKey}` },
    });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.contentType).toMatch(/application\/json/);
    const lowerCase = await rawRequest(open.url, folders, {
      headers: { authorization: `bearer ${open.adminKey}` },
    });
    expect(lowerCase.status).toBe(200);
    expect((await rawRequest(open.url, `${folders}?apikey=${open.adminKey}`)).status).toBe(200);
    expect(await clientOf(open).readUserFolders({ login: 'header-user' })).toEqual([]);
  });

  it('refuses a wrong, missing or malformed key with a clear error', async () => {
    const wrong = await rawRequest(open.url, folders, { headers: { authorization: 'Bearer vlk_not-a-key' } });
    expectJsonError(wrong, 401, 'unauthorized');
    const basic = await rawRequest(open.url, folders, { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(expectJsonError(basic, 401, 'unauthorized').err).toMatch(/Authorization: Bearer <key>/);
    const none = expectJsonError(await rawRequest(open.url, folders), 401, 'unauthorized');
    expect(none.err).toMatch(/Bearer/);
    expect(none.err).toMatch(/apikey/);
  });

  it('refuses keys in the URL when told to, and takes the header', async () => {
    const refused = expectJsonError(
      await rawRequest(strict.url, `${folders}?apikey=${strict.adminKey}`),
      401,
      'unauthorized',
    );
    expect(refused.err).toMatch(/refuses API keys in the URL/);
    expect(refused.err).not.toContain(strict.adminKey);
    // A key in the URL is refused even beside a good header: it has travelled in a URL already.
    expectJsonError(
      await rawRequest(strict.url, `${folders}?apikey=${strict.adminKey}`, {
        headers: { authorization: `Bearer ${strict.adminKey}` },
      }),
      401,
      'unauthorized',
    );
    const missing = expectJsonError(await rawRequest(strict.url, folders), 401, 'unauthorized');
    expect(missing.err).not.toMatch(/apikey/);
    const viaHeader = await rawRequest(strict.url, folders, {
      headers: { authorization: `Bearer ${strict.adminKey}` },
    });
    expect(viaHeader.status).toBe(200);
    // A refused URL key is not a failed key: it does not count toward the lockout nor the audit.
    const audit = await strict.server.vault
      .adminAs(TEST_OPERATOR)
      .listAudit({ limit: 100, action: 'auth/failed' });
    expect(audit).toEqual([]);
  });

  it('answers the CORS preflight of an allowed origin without a key, and nothing to others', async () => {
    const browser = await startTestVault({ logLines, corsOrigins: ['https://vscode.dev'] });
    try {
      const preflight = await rawRequest(browser.url, folders, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://vscode.dev',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('https://vscode.dev');
      expect(String(preflight.headers['access-control-allow-headers'])).toContain('authorization');
      const answer = await rawRequest(browser.url, '/api/index.php/read/userfolders/nobody', {
        headers: { origin: 'https://vscode.dev', authorization: `Bearer ${browser.adminKey}` },
      });
      expect(answer.headers['access-control-allow-origin']).toBe('https://vscode.dev');
      const stranger = await rawRequest(browser.url, folders, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
      });
      expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await browser.close();
    }
    // Without the setting, nothing is allowed and the preflight is an unauthenticated request.
    const closed = await rawRequest(open.url, folders, {
      method: 'OPTIONS',
      headers: { origin: 'https://vscode.dev', 'access-control-request-method': 'GET' },
    });
    expect(closed.headers['access-control-allow-origin']).toBeUndefined();
    expect(closed.status).toBe(401);
  });

  it.each([
    ['accepts', () => open],
    ['refuses', () => strict],
  ] as const)(
    'gets the key from the protocol client in the header, never in the URL, where the server %s URL keys',
    async (_, vaultOf) => {
      const vault = vaultOf();
      const sent: { url: string; authorization: string | null }[] = [];
      const recording: typeof fetch = (input, init) => {
        const request = new Request(input, init);
        sent.push({ url: request.url, authorization: request.headers.get('authorization') });
        return fetch(request);
      };
      const client = createWireClient({
        baseUrl: vault.url,
        auth: vault.adminKey,
        fetch: recording,
        retry: { retries: 0 },
      });
      const before = logLines.length;
      const folder = await client.addFolder({ folder: { title: 'Sent with a header' } });
      const { id } = await client.addItem({
        item: { label: 'header item', password: 'pw-header', folderId: folder.id },
      });
      expect((await client.getItem(id)).password).toBe('pw-header');
      expect((await client.capabilities()).keyTransport).toBe('header');
      const calls = sent.filter((request) => !request.url.endsWith(SERVER_INFO_PATH));
      expect(sent.length).toBeGreaterThan(calls.length);
      expect(calls.length).toBeGreaterThanOrEqual(3);
      for (const request of sent) {
        expect(request.url).not.toContain(vault.adminKey);
        expect(request.url).not.toMatch(/apikey=/);
      }
      for (const request of calls) expect(request.authorization).toBe(`Bearer ${vault.adminKey}`);
      // The server's access log has a line per call and never the key.
      const logged = logLines.slice(before).filter((line) => line.includes('"msg":"request"'));
      expect(logged.length).toBeGreaterThanOrEqual(calls.length);
      expectNoSecrets(logged, [vault.adminKey, 'pw-header']);
    },
  );

  it('serves the OpenAPI 3.1 document of every operation without a key', async () => {
    const answer = await rawRequest(open.url, OPENAPI_DOCUMENT_PATH);
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/application\/json/);
    const document = JSON.parse(answer.body) as {
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(document).toEqual(
      JSON.parse(JSON.stringify(createOpenApiDocument({ version: document.info.version }))),
    );
    const operations = Object.values(document.paths).flatMap((path) => Object.values(path));
    for (const row of Object.values(endpoints)) {
      expect(Object.keys(document.paths)).toContain(`/api/index.php${row.path}`);
    }
    // The rows, the keyless identification and the keyless OIDC exchange.
    expect(operations.length).toBe(Object.keys(endpoints).length + 2);
    expect(document.info.version).toBe(
      v.parse(
        ServerInfoSchema,
        JSON.parse((await rawRequest(open.url, `/api/index.php${SERVER_INFO_PATH}`)).body),
      ).version,
    );
  });
});
