import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FORMAT_VERSION } from '@vaultline/sealer';
import { sealLegacyBox } from '@vaultline/sealer/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { rotateMasterKey } from '../src/cli/rotate-master-key.ts';
import { parseMasterKey } from '../src/crypto/master-key.ts';
import { UNBOUND_ITEM_SECRETS } from '../src/store/item-secrets.ts';
import { setItemExtras } from '../src/store/items.ts';
import { startTestVault, type TestVault } from '../src/testing.ts';
import { clientOf, expectNoSecrets, expectVaultError, TEST_OPERATOR } from './support/helpers.ts';

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
    const reseal = (sealed: Uint8Array, aad?: Uint8Array) =>
      sealLegacyBox(masterKey, ctx.box.open(sealed, aad));
    const [item] = await db.query<{ password: Uint8Array }>('SELECT password FROM items WHERE id = $1', [id]);
    await db.query('UPDATE items SET password = $2 WHERE id = $1', [
      id,
      reseal(item!.password, Buffer.from(`items:${id}:password`)),
    ]);
    const [canary] = await db.query<{ value: Uint8Array }>("SELECT value FROM meta WHERE name = 'canary'");
    await db.query("UPDATE meta SET value = $1 WHERE name = 'canary'", [reseal(canary!.value)]);
    const [key] = await db.query<{ content_key: Uint8Array }>('SELECT content_key FROM files WHERE id = $1', [
      file.id,
    ]);
    await db.query('UPDATE files SET content_key = $2 WHERE id = $1', [file.id, reseal(key!.content_key)]);
    expect(new Set(await formatsOf(vault))).toEqual(new Set([1]));
    // As a vault from before migration 12 holds them: its items' secrets still to bind.
    await db.query("INSERT INTO meta (name, value) VALUES ($1, '')", [UNBOUND_ITEM_SECRETS]);
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

describe('an item’s secrets', () => {
  it('are bound to their row: copied to another item, they do not open there', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'vaultline-bound-'));
    dirs.push(dataDir);
    const vault = await startTestVault({ dataDir, logLines, cacheTtlMs: 0 });
    try {
      const client = clientOf(vault);
      secrets.push(vault.adminKey, 'bound-password-a', 'bound-password-b', 'field-a');
      const folder = await client.addFolder({ folder: { title: 'Bound' } });
      const a = (
        await client.addItem({ item: { label: 'a', password: 'bound-password-a', folderId: folder.id } })
      ).id;
      const b = (
        await client.addItem({ item: { label: 'b', password: 'bound-password-b', folderId: folder.id } })
      ).id;
      const { db, ctx } = vault.server.vault;
      await db.transaction((tx) =>
        setItemExtras(tx, ctx, a, {
          otp: { secret: 'JBSWY3DPEHPK3PXP', algorithm: 'sha1', digits: 6, period: 30 },
          fields: [{ title: 'PIN', type: 'text', masked: true, value: 'field-a' }],
        }),
      );
      expect((await client.readOtp({ id: a })).code).toMatch(/^[0-9]{6}$/);
      // A's sealed password, TOTP secret and fields, copied onto B as they are stored.
      await db.query(
        'UPDATE items SET password = a.password, totp = a.totp, fields = a.fields FROM items a WHERE a.id = $1 AND items.id = $2',
        [a, b],
      );
      await expectVaultError(client.readItems({ ids: [b] }), 'server');
      await expectVaultError(client.readOtp({ id: b }), 'server');
      // Nor into another column of the same row: A's password as its fields.
      await db.query('UPDATE items SET fields = password WHERE id = $1', [a]);
      await expectVaultError(client.readItems({ ids: [a] }), 'server');
      await db.query('UPDATE items SET fields = NULL WHERE id = $1', [a]);
      expect((await client.readItems({ ids: [a] }))[0]?.password).toBe('bound-password-a');
    } finally {
      await vault.close();
    }
  });

  it('sealed bound to nothing, as before migration 12, are bound when the vault opens', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'vaultline-unbound-'));
    dirs.push(dataDir);
    const vault = await startTestVault({ dataDir, logLines });
    const client = clientOf(vault);
    const folder = await client.addFolder({ folder: { title: 'Unbound' } });
    const { id } = await client.addItem({
      item: { label: 'unbound', password: 'unbound-password', folderId: folder.id },
    });
    secrets.push(vault.adminKey, 'unbound-password');
    const { db, ctx } = vault.server.vault;
    // As the release before wrote it: the sealer's format, no additional data.
    await db.query('UPDATE items SET password = $2 WHERE id = $1', [
      id,
      ctx.box.seal(Buffer.from('unbound-password')),
    ]);
    await db.query("INSERT INTO meta (name, value) VALUES ($1, '')", [UNBOUND_ITEM_SECRETS]);
    await vault.close();
    const reopened = await startTestVault({ dataDir, logLines });
    try {
      expect((await clientOf(reopened, vault.adminKey).getItem(id)).password).toBe('unbound-password');
      const [row] = await reopened.server.vault.db.query<{ password: Uint8Array }>(
        'SELECT password FROM items WHERE id = $1',
        [id],
      );
      const box = reopened.server.vault.ctx.box;
      expect(box.open(row!.password, Buffer.from(`items:${id}:password`)).toString()).toBe(
        'unbound-password',
      );
      expect(() => box.open(row!.password)).toThrow(/could not be decrypted/);
      const marks = await reopened.server.vault.db.query('SELECT 1 FROM meta WHERE name = $1', [
        UNBOUND_ITEM_SECRETS,
      ]);
      expect(marks).toHaveLength(0);
    } finally {
      await reopened.close();
    }
  });
});
