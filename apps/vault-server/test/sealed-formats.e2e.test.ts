import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FORMAT_VERSION } from '@vaultline/sealer';
import { sealLegacyBox } from '@vaultline/sealer/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { rotateMasterKey } from '../src/cli/rotate-master-key.ts';
import { parseMasterKey } from '../src/crypto/master-key.ts';
import { startTestVault, type TestVault } from '../src/testing.ts';
import { clientOf, expectNoSecrets, TEST_OPERATOR } from './support/helpers.ts';

const dirs: string[] = [];
const logLines: string[] = [];
const secrets: string[] = [];

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  expectNoSecrets(logLines, secrets);
});

/** The first byte of every sealed value the vault holds: the password, the key check, the content keys. */
async function formatsOf(vault: TestVault): Promise<number[]> {
  const rows = await vault.server.vault.db.query<{ value: Uint8Array }>(
    `SELECT password AS value FROM items
     UNION ALL SELECT value FROM meta WHERE name = 'canary'
     UNION ALL SELECT content_key AS value FROM files WHERE content_key IS NOT NULL`,
  );
  return rows.map((row) => Buffer.from(row.value)[0]!);
}

describe('secrets sealed in the server’s first format', () => {
  it('still open, and rotate-master-key seals every one again in the sealer’s format', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'vaultline-sealed-'));
    dirs.push(dataDir);
    const vault = await startTestVault({ dataDir, logLines });
    const client = clientOf(vault);
    const folder = await client.addFolder({ folder: { title: 'First format' } });
    const { id } = await client.addItem({
      item: { label: 'sealed long ago', password: 'first-format-password', folderId: folder.id },
    });
    const file = await client.addFile({ itemId: id, file: new Uint8Array([7, 8, 9]), fileName: 'f.bin' });
    secrets.push(vault.adminKey, 'first-format-password');
    // What this release wrote is in the sealer's format…
    expect(new Set(await formatsOf(vault))).toEqual(new Set([FORMAT_VERSION]));
    // …and is written again as the server before it sealed it: version 1, nonce, tag, ciphertext.
    const masterKey = parseMasterKey(await readFile(join(dataDir, 'master.key'), 'utf8'), 'the test key');
    const { db, ctx } = vault.server.vault;
    const reseal = (sealed: Uint8Array) => sealLegacyBox(masterKey, ctx.box.open(sealed));
    const [item] = await db.query<{ password: Uint8Array }>('SELECT password FROM items WHERE id = $1', [id]);
    await db.query('UPDATE items SET password = $2 WHERE id = $1', [id, reseal(item!.password)]);
    const [canary] = await db.query<{ value: Uint8Array }>("SELECT value FROM meta WHERE name = 'canary'");
    await db.query("UPDATE meta SET value = $1 WHERE name = 'canary'", [reseal(canary!.value)]);
    const [key] = await db.query<{ content_key: Uint8Array }>('SELECT content_key FROM files WHERE id = $1', [
      file.id,
    ]);
    await db.query('UPDATE files SET content_key = $2 WHERE id = $1', [file.id, reseal(key!.content_key)]);
    expect(new Set(await formatsOf(vault))).toEqual(new Set([1]));
    await vault.close();

    const reopened = await startTestVault({ dataDir, logLines });
    try {
      const again = clientOf(reopened, vault.adminKey);
      expect((await again.getItem(id)).password).toBe('first-format-password');
      expect([...(await again.downloadFile({ id: file.id! })).bytes]).toEqual([7, 8, 9]);
    } finally {
      await reopened.close();
    }

    const rotation = { dataDir, databaseUrl: undefined, masterKey: undefined, cacheTtlMs: 0 };
    expect(await rotateMasterKey(TEST_OPERATOR, rotation)).toMatchObject({ items: 1, files: 1 });
    const rotated = await startTestVault({ dataDir, logLines });
    try {
      expect(new Set(await formatsOf(rotated))).toEqual(new Set([FORMAT_VERSION]));
      const again = clientOf(rotated, vault.adminKey);
      expect((await again.getItem(id)).password).toBe('first-format-password');
      expect([...(await again.downloadFile({ id: file.id! })).bytes]).toEqual([7, 8, 9]);
    } finally {
      await rotated.close();
    }
  });
});
