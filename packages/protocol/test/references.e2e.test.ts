import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAccessChecker } from '../src/access.ts';
import { VaultError } from '../src/errors.ts';
import { checkReferences } from '../src/references/check-references.ts';
import { formatReference } from '../src/references/reference.ts';
import {
  type ResolvedReference,
  type ResolvedValue,
  resolveReferences,
  type UnresolvedReference,
} from '../src/references/resolve-references.ts';
import {
  type ReplayServer,
  type StoredItem,
  startReplayServer,
} from '../src/testing/teampass-replay-server.ts';
import { createVaultClient } from '../src/vault/client.ts';
import type { VaultClient } from '../src/vault/types.ts';

const KEY = 'tpRefsKey0123456789abcdefghijklmnopqrstu';

let server: ReplayServer;
let vault: VaultClient;

function item(id: string, label: string, folder: string, pw: string): StoredItem {
  return {
    id,
    label,
    description: `about ${label}`,
    login: `${label}-user`,
    email: 'ops@example.com',
    url: 'https://example.com',
    pw,
    folder_id: folder,
    tags: '',
    anyone_can_modify: '0',
  };
}

beforeAll(async () => {
  server = await startReplayServer({ apiKey: KEY });
  vault = createVaultClient({ baseUrl: server.url, auth: KEY, retry: { retries: 0 } });
  // Seeded: Team (1) > Staging (2); db (10, Team), cache (11, Staging), personal (12, no password).
  server.folders.set('3', {
    id: '3',
    title: 'Café / ops',
    parent_id: '1',
    complexity: '0',
    renewal: '0',
    personal: '0',
  });
  server.folders.set('4', {
    id: '4',
    title: 'Secret',
    parent_id: '0',
    complexity: '0',
    renewal: '0',
    personal: '0',
  });
  server.folders.set('5', {
    id: '5',
    title: 'Reader',
    parent_id: '0',
    complexity: '0',
    renewal: '0',
    personal: '0',
  });
  server.items.set('20', item('20', 'prod db 100%', '3', 'pw-unicode-☃'));
  // Two items with the same label in one folder (TeamPass only checks labels on add).
  server.items.set('21', item('21', 'twin', '1', 'pw-twin-a'));
  server.items.set('22', item('22', 'twin', '1', 'pw-twin-b'));
  server.items.set('30', item('30', 'hidden', '4', 'pw-hidden'));
  server.items.set('40', item('40', 'readable', '5', 'pw-readable'));
  server.files.set('90', {
    id: '90',
    itemId: '10',
    name: 'id_rsa',
    type: 'text/plain',
    bytes: Buffer.from('KEY-BYTES\n'),
  });
  server.files.set('91', {
    id: '91',
    itemId: '10',
    name: 'dup.txt',
    type: 'text/plain',
    bytes: Buffer.from('a'),
  });
  server.files.set('92', {
    id: '92',
    itemId: '10',
    name: 'dup.txt',
    type: 'text/plain',
    bytes: Buffer.from('b'),
  });
  server.users.set('alice', { rights: { '1': 'W', '2': 'ND', '3': 'R', '5': 'R' } });
  server.users.set('nobody', { rights: { '5': 'none' } });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

function ok(result: ResolvedReference | undefined): ResolvedValue {
  if (!result?.ok) throw new Error(`expected a value, got ${result?.error.code}: ${result?.error.message}`);
  return result;
}
function failed(result: ResolvedReference | undefined): UnresolvedReference {
  if (!result || result.ok) throw new Error('expected a failure');
  return result;
}
function calls(path: string): number {
  return server.requests.filter((request) => request.url.includes(path)).length;
}

describe('the references module', () => {
  it('is host-free: no Node built-ins, so it runs in browsers and web workers', async () => {
    const { readdir, readFile } = await import('node:fs/promises');
    const dir = new URL('../src/references/', import.meta.url);
    for (const name of await readdir(dir)) {
      if (name.endsWith('.test.ts')) continue;
      const source = await readFile(new URL(name, dir), 'utf8');
      expect({ name, nodeImport: /from ['"]node:|require\(/.test(source) }).toEqual({
        name,
        nodeImport: false,
      });
    }
  });
});

describe('resolveReferences', () => {
  it('resolves every field of items by id in one read/items call', async () => {
    const results = await resolveReferences(vault, [
      'vaultline://10/password',
      'vaultline://10/login',
      'vaultline://11/email',
      'vaultline://11/url',
      'vaultline://20/description',
      'vaultline://20/label',
    ]);
    expect(results.map((r) => ok(r).value)).toEqual([
      'pw-db-seeded',
      'admin',
      'ops@example.com',
      'https://cache.example.com/?a=1&b=2',
      'about prod db 100%',
      'prod db 100%',
    ]);
    expect(ok(results[4]).item).toEqual({
      id: 20,
      label: 'prod db 100%',
      folderId: 3,
      path: ['Team', 'Café / ops'],
      login: 'prod db 100%-user',
    });
    expect(calls('/read/items/')).toBe(1);
    expect(server.requests).toHaveLength(1);
  });

  it('resolves references by path, with escapes, in one read/userfolders and one read/folder call', async () => {
    const readable = formatReference({
      kind: 'path',
      folders: ['Team', 'Café / ops'],
      label: 'prod db 100%',
      field: 'password',
    });
    expect(readable).toBe('vaultline://Team/Caf%C3%A9%20%2F%20ops/prod%20db%20100%25/password');
    const results = await resolveReferences(
      vault,
      [
        readable,
        'vaultline://Team/Staging/cache/password',
        'vaultline://Team/db/login',
        'vaultline://10/url',
      ],
      { login: 'alice' },
    );
    expect(results.map((r) => ok(r).value)).toEqual([
      'pw-unicode-☃',
      'pw-cache-seeded',
      'admin',
      'https://db.example.com/?a=1&b=2',
    ]);
    expect(calls('/read/userfolders/')).toBe(1);
    expect(calls('/read/folder/')).toBe(1);
    expect(calls('/read/items/')).toBe(1);
    // The checker does not read the user's item list: it carries every password the user may see.
    expect(calls('/read/userpw/')).toBe(0);
  });

  it('matches paths and labels ignoring case and accents when nothing matches exactly', async () => {
    const [result] = await resolveReferences(
      vault,
      ['vaultline://team/CAFE%20%2F%20OPS/Prod%20DB%20100%25/password'],
      {
        login: 'alice',
      },
    );
    expect(ok(result).value).toBe('pw-unicode-☃');
  });

  it('names the candidates of an ambiguous path, and never a value', async () => {
    const [result] = await resolveReferences(vault, ['vaultline://Team/twin/password'], { login: 'alice' });
    const { error } = failed(result);
    expect(error.code).toBe('ambiguous');
    expect(error.candidates).toEqual([21, 22]);
    expect(error.message).toContain('vaultline://Team/twin/password');
    expect(error.message).toContain('21, 22');
    expect(error.message).not.toContain('pw-twin');
  });

  it('reports each failure as a typed error naming its reference, and resolves the rest', async () => {
    const results = await resolveReferences(
      vault,
      [
        'vaultline://999/password',
        'vaultline://Team/nothing/password',
        'vaultline://Nowhere/db/password',
        'vaultline://30/password',
        'vaultline://42/pw',
        'not a reference',
        'vaultline://12/password',
        'vaultline://10/file:missing.txt',
        'vaultline://10/file:dup.txt',
        'vaultline://10/password',
      ],
      { login: 'alice' },
    );
    const codes = results.map((r) => (r.ok ? 'ok' : r.error.code));
    expect(codes).toEqual([
      'not_found',
      'not_found',
      'not_found',
      'forbidden',
      'unknown_field',
      'invalid_reference',
      'unavailable',
      'not_found',
      'ambiguous',
      'ok',
    ]);
    for (const result of results) {
      if (result.ok) continue;
      expect(result.error.message).toContain(result.error.reference);
      expect(result.error.reference).toContain(result.text.slice(0, 20));
      for (const secret of ['pw-hidden', 'pw-db-seeded', 'KEY-BYTES', KEY])
        expect(JSON.stringify(result.error) + result.error.message).not.toContain(secret);
    }
    expect(failed(results[8]).error.candidates).toEqual([91, 92]);
  });

  it('denies what the login has no right on, by the rights table', async () => {
    const results = await resolveReferences(
      vault,
      ['vaultline://40/password', 'vaultline://Reader/readable/password'],
      {
        login: 'nobody',
      },
    );
    expect(results.map((r) => (r.ok ? 'ok' : r.error.code))).toEqual(['forbidden', 'not_found']);
  });

  it('needs a login for references by path, not for ids', async () => {
    const results = await resolveReferences(vault, [
      'vaultline://Team/db/password',
      'vaultline://30/password',
    ]);
    expect(failed(results[0]).error.code).toBe('login_required');
    // Without a login, the key's own rights apply.
    expect(ok(results[1]).value).toBe('pw-hidden');
  });

  it('reads attachments by name through read/listfiles and read/files', async () => {
    const [result] = await resolveReferences(vault, ['vaultline://Team/db/file:id_rsa'], { login: 'alice' });
    const value = ok(result);
    expect(value.value).toBe('KEY-BYTES\n');
    expect(value.bytes).toEqual(new Uint8Array(Buffer.from('KEY-BYTES\n')));
    expect(calls('/read/listfiles/10')).toBe(1);
    expect(calls('/read/files/90')).toBe(1);
  });

  it('checks an attachment reference without downloading it when values are not asked for', async () => {
    const [found, missing] = await resolveReferences(
      vault,
      ['vaultline://Team/db/file:id_rsa', 'vaultline://10/file:missing.txt'],
      { login: 'alice', values: false },
    );
    expect(ok(found)).toMatchObject({ value: '', item: { id: 10 } });
    expect(failed(missing).error.code).toBe('not_found');
    expect(calls('/read/listfiles/10')).toBe(1);
    expect(calls('/read/files/')).toBe(0);
  });

  it('says a one-time code is unsupported on a vault without them, resolving the rest', async () => {
    const [otp, password] = await resolveReferences(vault, ['vaultline://10/otp', 'vaultline://10/password']);
    expect(otp).toMatchObject({ ok: false, error: { code: 'unsupported' } });
    expect((otp as UnresolvedReference).error.message).toBe(
      'vaultline://10/otp: this vault has no one-time codes (capabilities: otp false).',
    );
    expect(ok(password).value).toBe('pw-db-seeded');
    expect(server.requests).toHaveLength(1);
  });

  it('shares a checker and its cache across calls', async () => {
    const checker = createAccessChecker(vault);
    await resolveReferences(vault, ['vaultline://10/password'], { login: 'alice', checker });
    await resolveReferences(vault, ['vaultline://11/password'], { login: 'alice', checker });
    expect(calls('/read/userfolders/')).toBe(1);
  });

  it("a hover on one reference reads that item and the login's folder rights, never read/userpw", async () => {
    // The VS Code extension's setup: one checker per connection, shared by hovers and diagnostics.
    const checker = createAccessChecker(vault);
    const paths = () =>
      server.requests.map((request) => request.url.split('?')[0]!.replace('/api/index.php', ''));
    const [hover] = await resolveReferences(vault, ['vaultline://11/password'], { login: 'alice', checker });
    expect(ok(hover).value).toBe('pw-cache-seeded');
    expect(paths().sort()).toEqual(['/read/items/11', '/read/userfolders/alice']);
    // The next hover (or the diagnostics pass) reads only the item it names.
    server.reset();
    const [again] = await resolveReferences(vault, ['vaultline://10/login'], { login: 'alice', checker });
    expect(ok(again).value).toBe('admin');
    expect(paths()).toEqual(['/read/items/10']);
  });

  it('keeps decisions right without read/userpw: forbidden, personal folders, unknown ids', async () => {
    server.folders.set('6', {
      id: '6',
      title: '1',
      parent_id: '0',
      complexity: '0',
      renewal: '0',
      personal: '1',
    });
    server.items.set('60', item('60', 'own', '6', 'pw-own-personal'));
    try {
      const checker = createAccessChecker(vault);
      const results = await resolveReferences(
        vault,
        [
          'vaultline://30/password',
          'vaultline://60/password',
          'vaultline://999/password',
          'vaultline://40/password',
        ],
        { login: 'alice', checker },
      );
      expect(results.map((result) => (result.ok ? 'ok' : result.error.code))).toEqual([
        'forbidden',
        'forbidden',
        'not_found',
        'ok',
      ]);
      // A login whose only folder grants nothing is denied every item.
      const [none] = await resolveReferences(vault, ['vaultline://40/password'], {
        login: 'nobody',
        checker,
      });
      expect(failed(none).error.code).toBe('forbidden');
      expect(calls('/read/userpw/')).toBe(0);
      expect(
        server.requests
          .filter((request) => request.url.includes('/read/items/'))
          .map((r) => r.url.split('?')[0]),
      ).toEqual(['/api/index.php/read/items/30;60;999;40', '/api/index.php/read/items/40']);
      for (const result of results) expect(JSON.stringify(result)).not.toContain('pw-hidden');
    } finally {
      server.folders.delete('6');
      server.items.delete('60');
    }
  });

  it('throws the client error when the vault cannot be read, without the key', async () => {
    const wrong = createVaultClient({
      baseUrl: server.url,
      auth: 'wrong-key-0123456789',
      retry: { retries: 0 },
    });
    const error = await resolveReferences(wrong, ['vaultline://10/password']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VaultError);
    expect(String((error as VaultError).message)).not.toContain('wrong-key-0123456789');
    const down = createVaultClient({ baseUrl: 'http://127.0.0.1:9', auth: KEY, retry: { retries: 0 } });
    const network = await resolveReferences(down, ['vaultline://10/password']).catch((e: unknown) => e);
    expect((network as VaultError).code).toBe('network');
  });

  it('resolves hundreds of ids without one call per reference', async () => {
    const refs = Array.from({ length: 300 }, (_, i) => `vaultline://${(i % 3) + 10}/label`);
    const results = await resolveReferences(vault, refs);
    expect(results.filter((r) => r.ok)).toHaveLength(300);
    expect(server.requests).toHaveLength(1);
  });
});

describe('checkReferences', () => {
  it('says which references resolve and why the others do not, with no value anywhere in its answer', async () => {
    const checks = await checkReferences(
      vault,
      [
        'vaultline://10/password',
        'vaultline://Team/db/file:id_rsa',
        'vaultline://30/password',
        'vaultline://999/login',
        'vaultline://Team/twin/password',
        'vaultline://10/pw',
      ],
      { login: 'alice' },
    );
    expect(checks.map((check) => (check.ok ? 'ok' : check.error.code))).toEqual([
      'ok',
      'ok',
      'forbidden',
      'not_found',
      'ambiguous',
      'unknown_field',
    ]);
    expect(checks[0]).toEqual({
      ok: true,
      text: 'vaultline://10/password',
      reference: { kind: 'id', id: 10, field: 'password' },
      item: { id: 10, label: 'db', folderId: 1, path: ['Team'], login: 'admin' },
    });
    const answer = JSON.stringify(checks);
    for (const value of ['pw-db-seeded', 'pw-hidden', 'pw-twin-a', 'pw-twin-b', 'KEY-BYTES', 'about db'])
      expect(answer).not.toContain(value);
    expect(calls('/read/files/')).toBe(0);
  });
});
