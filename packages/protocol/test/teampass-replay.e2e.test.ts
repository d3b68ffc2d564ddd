import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WireClient } from '../src/client/types.ts';
import { serverWordsOf, VaultError } from '../src/errors.ts';
import { type ReplayServer, startReplayServer } from '../src/testing/teampass-replay-server.ts';
import { createWireClient } from '../src/vault/wire-client.ts';

const KEY = 'replayK3yA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5';

let server: ReplayServer;
let vault: WireClient;

beforeAll(async () => {
  server = await startReplayServer({ apiKey: KEY });
  vault = createWireClient({ baseUrl: server.url, auth: KEY, retry: { retries: 0 } });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

describe('the replay server with 3-byte tables (a default TeamPass install)', () => {
  it.each([
    ['label', { label: 'emoji 😀' }],
    ['description', { description: 'party 🎉' }],
    ['login', { login: 'user👤' }],
    ['url', { url: 'https://x/🔑' }],
  ])(
    'answers HTTP 200 with MySQL text for an emoji in the %s, and stores nothing',
    async (column, values) => {
      server.threeByteTables = true;
      const before = server.items.size;
      const error = await vault
        .addItem({ item: { label: 'plain', password: 'pw 😀 ok', folderId: 1, ...values } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(VaultError);
      expect((error as VaultError).code).toBe('invalid_response');
      expect(serverWordsOf(error)).toMatch(
        new RegExp(`^Incorrect string value: '\\\\xF0\\\\x9F.*\`${column}\``),
      );
      expect(server.items.size).toBe(before);
    },
  );

  it('keeps BMP text, accents and a 4-byte password (it is stored encrypted)', async () => {
    server.threeByteTables = true;
    const { id } = await vault.addItem({
      item: { label: 'Ünïcødé ✓ ok', password: 'pw 😀', folderId: 1, description: 'é' },
    });
    const [item] = await vault.readItems({ ids: [id] });
    expect(item?.label).toBe('Ünïcødé ✓ ok');
    expect(item?.password).toBe('pw 😀');
    const error = await vault
      .updateItem({ id, item: { label: 'now 😀', password: 'x', folderId: 1 } })
      .catch((e: unknown) => e);
    expect((error as VaultError).code).toBe('invalid_response');
    const folder = await vault.addFolder({ folder: { title: 'folder 🗂' } }).catch((e: unknown) => e);
    expect(serverWordsOf(folder)).toMatch(/`title`/);
  });

  it('stores emoji as sent with 4-byte tables (the default of the replay server)', async () => {
    const { id } = await vault.addItem({ item: { label: 'emoji 😀 stored', password: 'x', folderId: 1 } });
    expect((await vault.readItems({ ids: [id] }))[0]?.label).toBe('emoji 😀 stored');
  });
});

describe('the replay server without file endpoints (every TeamPass release)', () => {
  it('answers No results on add/file, read/listfiles and read/files', async () => {
    server.fileEndpoints = false;
    expect(await vault.listFiles({ itemId: 10 })).toEqual([]);
    const add = await vault
      .addFile({ itemId: 10, file: new Uint8Array([1, 2]), fileName: 'a.bin' })
      .catch((e: unknown) => e);
    expect((add as VaultError).serverMessage).toBe('No results');
    const download = await vault.downloadFile({ id: 1 }).catch((e: unknown) => e);
    expect((download as VaultError).code).toBe('not_found');
    expect(server.files.size).toBe(0);
  });
});

describe('new_password and info/version on TeamPass 2', () => {
  it('sends the rules in TeamPass order with the length asked, and reads TeamPass’s password', async () => {
    const { password } = await vault.generatePassword({ rules: { length: 14 } });
    expect(server.requests.map((request) => request.url)).toEqual([
      `/api/index.php/new_password/14;1;1;1;0;1;0;?apikey=${KEY}`,
    ]);
    // TeamPass's own rules: letters and digits always, symbols with secure, no look-alikes.
    expect(password).toHaveLength(14);
    expect(password).not.toMatch(/[iIl1Oo0]/);
  });

  it('answers as TeamPass: base64 when asked, no parameters refused, the API version with the key', async () => {
    const raw = async (path: string) => {
      const response = await fetch(`${server.url}/api/index.php${path}`);
      return { status: response.status, body: await response.text() };
    };
    const encoded = await raw(`/new_password/10;0;0;0;0;1;1?apikey=${KEY}`);
    const { password } = JSON.parse(encoded.body) as { password: string };
    expect(Buffer.from(password, 'base64').toString()).toHaveLength(10);
    expect(await raw(`/new_password?apikey=${KEY}`)).toEqual({
      status: 200,
      body: '{"err":"No parameters given"}',
    });
    expect(await raw(`/info/version?apikey=${KEY}`)).toEqual({
      status: 200,
      body: '{"api-version":"2.1.5"}',
    });
    expect((await raw('/info/version')).status).toBe(500);
  });
});
