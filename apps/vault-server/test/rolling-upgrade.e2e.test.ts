import { randomBytes } from 'node:crypto';
import { sealLegacyBox } from '@vaultline/sealer/testing';
import { type Database, openPostgres } from '@vaultline/store';
import { type PostgresCluster, startPostgresCluster } from '@vaultline/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateMasterKey, parseMasterKey } from '../src/crypto/master-key.ts';
import { MIGRATIONS, MIGRATIONS_TABLE } from '../src/db/migrations.ts';
import { APPLICATION_NAME } from '../src/db/older-instances.ts';
import { startTestVault, type TestVault } from '../src/testing.ts';
import { clientOf } from './support/helpers.ts';
import { writeOldFormatVault } from './support/old-format-vault.ts';

/**
 * An upgrade from the release before chunked attachments (schema 8) while an instance of it still
 * serves: the new release refuses to migrate under it, and reads what it uploaded all the same.
 */
describe('upgrading from the release before chunked attachments', () => {
  let cluster: PostgresCluster;
  const vaults: TestVault[] = [];
  const masterKey = generateMasterKey();

  beforeAll(async () => {
    cluster = await startPostgresCluster();
  });

  afterAll(async () => {
    for (const vault of vaults) await vault.close();
    await cluster?.stop();
  });

  it('refuses to migrate while an instance of the previous release still uses the database', async () => {
    const databaseUrl = await cluster.createDatabase();
    const old = [{ name: 'old.bin', bytes: randomBytes(3000) }];
    const { fileIds } = await writeOldFormatVault({ databaseUrl }, masterKey, old);
    // The previous release's instance: its pool names none of its sessions.
    const oldInstance = await openPostgres({ url: databaseUrl });
    try {
      await oldInstance.query('SELECT 1');
      await expect(startTestVault({ databaseUrl, masterKey })).rejects.toThrow(
        /previous release cannot read.*\(1 from an unnamed program at 127\.0\.0\.1\).*Stop every instance of the previous release/,
      );
      // Nothing was migrated: the old instance still serves its attachments.
      const [schema] = await oldInstance.query<{ version: number }>(
        `SELECT max(version) AS version FROM ${MIGRATIONS_TABLE}`,
      );
      expect(Number(schema?.version)).toBe(8);
      const [row] = await oldInstance.query<{ content: Uint8Array | null }>(
        'SELECT content FROM files WHERE id = $1',
        [fileIds[0]],
      );
      expect(row?.content).not.toBeNull();
    } finally {
      await oldInstance.close();
    }
    // Once it stopped, the new release migrates and serves every old attachment.
    const vault = await startTestVault({ databaseUrl, masterKey });
    vaults.push(vault);
    const downloaded = await clientOf(vault).downloadFile({ id: fileIds[0]! });
    expect(Buffer.from(downloaded.bytes).equals(old[0]!.bytes)).toBe(true);
  });

  it('reads an attachment an instance of the previous release uploaded after the migration', async () => {
    const databaseUrl = await cluster.createDatabase();
    const { itemId } = await writeOldFormatVault({ databaseUrl }, masterKey, []);
    const vault = await startTestVault({ databaseUrl, masterKey });
    vaults.push(vault);
    expect(MIGRATIONS.at(-1)!.version).toBeGreaterThanOrEqual(9);
    // As the previous release's add/file writes it: the whole file sealed in one blob.
    const bytes = randomBytes(300 * 1024 + 7);
    const rawKey = parseMasterKey(masterKey, 'the test key');
    let late: Database | undefined;
    let fileId: number;
    try {
      late = await openPostgres({ url: databaseUrl });
      const [row] = await late.query<{ id: number }>(
        'INSERT INTO files (item_id, name, media_type, extension, size, content) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id',
        [
          itemId,
          'late.bin',
          'application/octet-stream',
          'bin',
          bytes.byteLength,
          sealLegacyBox(rawKey, bytes),
        ],
      );
      fileId = Number(row!.id);
    } finally {
      await late?.close();
    }
    const client = clientOf(vault);
    expect((await client.listFiles({ itemId })).map((file) => file.name)).toEqual(['late.bin']);
    const downloaded = await client.downloadFile({ id: fileId });
    expect(Buffer.from(downloaded.bytes).equals(bytes)).toBe(true);
    // Rewritten in chunks on the way: the next read is the chunked one.
    const [stored] = await vault.server.vault.db.query<{ format: number; content: Uint8Array | null }>(
      'SELECT format, content FROM files WHERE id = $1',
      [fileId],
    );
    expect({ format: Number(stored?.format), content: stored?.content ?? null }).toEqual({
      format: 2,
      content: null,
    });
    expect(Buffer.from((await client.downloadFile({ id: fileId })).bytes).equals(bytes)).toBe(true);
  });

  it('refuses to migrate a database of the previous release (9d5f489) while an instance of it serves', async () => {
    const databaseUrl = await cluster.createDatabase();
    // Schema 9: attachments in chunks, item secrets sealed in that release's format, bound to nothing.
    const { itemId } = await writeOldFormatVault({ databaseUrl }, masterKey, [], 9);
    const oldInstance = await openPostgres({ url: databaseUrl });
    try {
      await oldInstance.query('SELECT 1');
      await expect(startTestVault({ databaseUrl, masterKey })).rejects.toThrow(
        /seals secrets .* the previous release cannot read.*\(1 from an unnamed program at 127\.0\.0\.1\).*Stop every instance of the previous release/,
      );
      const [schema] = await oldInstance.query<{ version: number }>(
        `SELECT max(version) AS version FROM ${MIGRATIONS_TABLE}`,
      );
      expect(Number(schema?.version)).toBe(9);
      // What it serves is as it wrote it: its format (version 1), which it reads.
      const [row] = await oldInstance.query<{ password: Uint8Array }>(
        'SELECT password FROM items WHERE id = $1',
        [itemId],
      );
      expect(Buffer.from(row!.password)[0]).toBe(1);
    } finally {
      await oldInstance.close();
    }
    // An instance of this release starting alongside (its sessions named with the schema it
    // serves) does not hold the migration back.
    const sibling = await openPostgres({ url: databaseUrl, applicationName: APPLICATION_NAME });
    try {
      await sibling.query('SELECT 1');
      const vault = await startTestVault({ databaseUrl, masterKey });
      vaults.push(vault);
      expect((await clientOf(vault).readItems({ ids: [itemId] }))[0]?.password).toBe('old-password');
    } finally {
      await sibling.close();
    }
  });
});
