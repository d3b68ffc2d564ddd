import { Agent } from 'node:http';
import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestVault } from '../src/testing.ts';
import { expectJsonError, rawRequest } from './support/helpers.ts';
import { malformedRequests } from './support/malformed-paths.ts';
import { vaultForSuite } from './support/vault-for-suite.ts';

const COUNT = 10_500;

async function snapshot(vault: TestVault): Promise<string> {
  const db = vault.server.vault.db;
  const tables = {
    items:
      'SELECT id, folder_id, label, label_key, description, login, email, url, tags, anyone_can_modify, encode(password, $$hex$$) AS password, updated_at FROM items ORDER BY id',
    folders: 'SELECT * FROM folders ORDER BY id',
    files:
      'SELECT id, item_id, name, media_type, extension, size, complete, chunks, md5(content_key) AS key FROM files ORDER BY id',
    fileChunks: 'SELECT file_id, seq, md5(content) AS content FROM file_chunks ORDER BY file_id, seq',
    users: 'SELECT * FROM users ORDER BY id',
    roles: 'SELECT * FROM roles ORDER BY id',
    userRoles: 'SELECT * FROM user_roles ORDER BY user_id, role_id',
    rights: 'SELECT * FROM role_rights ORDER BY role_id, folder_id',
    keys: 'SELECT id, label, key_hash, revoked_at FROM api_keys ORDER BY id',
  };
  const out: Record<string, unknown> = {};
  for (const [name, sql] of Object.entries(tables)) out[name] = await db.query(sql);
  return JSON.stringify(out);
}

describe('malformed request paths', () => {
  const suite = vaultForSuite('pglite');

  beforeAll(async () => {
    await suite.vault.seedDemo();
  });

  it(`answers ${COUNT} generated malformed paths with a 4xx JSON error and changes nothing`, async () => {
    const requests = malformedRequests(COUNT, suite.vault.adminKey);
    expect(new Set(requests.map((r) => `${r.method} ${r.path}`)).size).toBe(COUNT);
    const before = await snapshot(suite.vault);
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const request = requests[next++]!;
        const answer = await rawRequest(suite.vault.url, request.path, {
          method: request.method,
          agent,
          ...(request.method === 'POST' ? { headers: { 'content-type': 'text/plain' }, body: 'x' } : {}),
        });
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        let body: { err?: unknown; code?: unknown } = {};
        try {
          body = JSON.parse(answer.body) as typeof body;
        } catch {
          // reported below
        }
        const ok =
          answer.status >= 400 &&
          answer.status < 500 &&
          /application\/json/.test(answer.contentType) &&
          typeof body.err === 'string' &&
          typeof body.code === 'string';
        if (!ok && failures.length < 20)
          failures.push(
            `${answer.status} ${request.method} ${request.path.slice(0, 120)} → ${answer.body.slice(0, 120)}`,
          );
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    agent.destroy();
    expect(failures).toEqual([]);
    expect([...statuses.keys()].every((status) => status >= 400 && status < 500)).toBe(true);
    // Most paths must reach the decoders (400), not stop at authentication or routing.
    expect(statuses.get(400) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(COUNT * 0.6);
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(COUNT);
    expect(await snapshot(suite.vault)).toBe(before);
    expect((await fetch(`${suite.vault.url}/readyz`)).status).toBe(200);
  });
});

describe('requests the Node adapter cannot build', () => {
  const suite = vaultForSuite('pglite');
  const { logLines } = suite;

  it.each([
    '/api/index.php/read/items/11\\?apikey=KEY',
    '/api/index.php/find/item/8/\\?apikey=KEY',
    '/api/index.php/find/item/8/a\\b?apikey=KEY',
    '/api/index.php/read/userpw/\\?apikey=KEY',
    '/api/index.php/delete/folder/8\\?apikey=KEY',
    '/\\',
  ])('answers a raw backslash in %s with a logged 400 JSON invalid_request', async (template) => {
    const before = logLines.length;
    const answer = await rawRequest(suite.vault.url, template.replace('KEY', suite.vault.adminKey));
    const body = expectJsonError(answer, 400, 'invalid_request');
    expect(body.err).toMatch(/Backslash/);
    expect(answer.headers['cache-control']).toBe('no-store');
    const logged = logLines.slice(before).map((line) => JSON.parse(line) as { msg: string; status?: number });
    expect(logged).toContainEqual(expect.objectContaining({ msg: 'request', status: 400 }));
  });

  it('answers a request Node itself refuses (a malformed request line) with a logged 400 JSON', async () => {
    const before = logLines.length;
    const { port } = new URL(suite.vault.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write('GET /a b c HTTP/1.1\r\nHost: x\r\n\r\n'),
      );
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
      code: 'invalid_request',
    });
    const logged = logLines.slice(before).map((line) => JSON.parse(line) as { msg: string; status?: number });
    expect(logged).toContainEqual(expect.objectContaining({ msg: 'request', status: 400 }));
  });
});
