/**
 * A vault as the server wrote it before migration 9: the schema of migrations 1–8 (recorded in
 * `schema_migrations` as `migrate()` records them), and attachments stored as that server stored
 * them, each one AES-256-GCM blob of the whole file in `files.content`, and every secret sealed in
 * that server's format (`@vaultline/sealer/testing`'s `sealLegacyBox`). A test opens it with the
 * current server to see migration 9 and the rewrite in chunks keep every attachment.
 */

import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { ItemValues } from '@vaultline/protocol/wire';
import { sealLegacyBox } from '@vaultline/sealer/testing';
import { type Database, openPglite, openPostgres } from '@vaultline/store';
import { parseMasterKey } from '../../src/crypto/master-key.ts';
import { createSecretBox, type SecretBox } from '../../src/crypto/secret-box.ts';
import { MIGRATIONS } from '../../src/db/migrations.ts';
import { operatorActor } from '../../src/store/actor.ts';
import { addFolder } from '../../src/store/folders.ts';
import { addItems } from '../../src/store/items.ts';
import { createStoreContext } from '../../src/store/store-context.ts';

/** The last schema version before attachments were stored in chunks. */
export const OLD_SCHEMA_VERSION = 8;

/** An attachment to write the old way. */
export interface OldFile {
  name: string;
  bytes: Uint8Array;
  /** Flip one byte of the stored blob, as a damaged or tampered database would hold it. */
  damaged?: boolean;
}

/**
 * Writes an old-format vault into an empty database.
 *
 * @param target Where: a PGlite data directory or a PostgreSQL URL.
 * @param masterKey The master key (base64) the vault is encrypted with.
 * @param files The attachments, all on one item.
 * @param schemaVersion The schema to leave it at: 9 for the release before item secrets were bound
 *   to their rows (9d5f489; its attachments in chunks, but these written the older way all the same).
 * @returns The item's id and each file's id, in order.
 */
export async function writeOldFormatVault(
  target: { dataDir: string } | { databaseUrl: string },
  masterKey: string,
  files: readonly OldFile[],
  schemaVersion = OLD_SCHEMA_VERSION,
): Promise<{ itemId: number; fileIds: number[] }> {
  let db: Database;
  if ('dataDir' in target) {
    db = await openPglite({ dataDir: target.dataDir, extensions: { pg_trgm } });
  } else {
    db = await openPostgres({ url: target.databaseUrl });
  }
  try {
    await db.transaction(async (tx) => {
      await tx.exec(
        'CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      for (const migration of MIGRATIONS.filter((m) => m.version <= schemaVersion)) {
        await tx.exec(migration.sql);
        await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
          migration.version,
          migration.name,
        ]);
      }
    });
    const rawKey = parseMasterKey(masterKey, 'the test key');
    // That server's secret box: every value sealed in its format (version 1, nonce, tag, ciphertext).
    const box: SecretBox = {
      ...createSecretBox(rawKey),
      // It bound nothing: no value of it carries additional data.
      seal: (plain) => sealLegacyBox(rawKey, plain),
      sealText: (plain) => sealLegacyBox(rawKey, Buffer.from(plain, 'utf8')),
    };
    const ctx = createStoreContext(db, box, 0);
    const operator = operatorActor('old-server', 'test');
    // Today's store writes its audit with the workload identity (a later migration's column):
    // there while it writes, gone again before the vault is handed over in its old schema.
    await db.query('ALTER TABLE audit ADD COLUMN identity text');
    const folderId = await addFolder(ctx, operator, {
      title: 'Old format',
      parentId: 0,
      complexityLevel: 0,
      renewalPeriod: 0,
      personal: false,
    });
    const values: ItemValues = {
      label: 'old attachments',
      password: 'old-password',
      description: '',
      folderId: String(folderId),
      login: '',
      email: '',
      url: '',
      tags: '',
      anyoneCanModify: '0',
    };
    const [itemId] = await addItems(ctx, operator, [values]);
    const fileIds: number[] = [];
    for (const file of files) {
      // The old server's add/file, as it was: the whole file sealed in one blob, in its format.
      const sealed = sealLegacyBox(rawKey, file.bytes);
      if (file.damaged) sealed[sealed.length - 1]! ^= 1;
      const [row] = await db.query<{ id: number }>(
        'INSERT INTO files (item_id, name, media_type, extension, size, content) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id',
        [itemId, file.name, 'application/octet-stream', 'bin', file.bytes.byteLength, sealed],
      );
      fileIds.push(Number(row!.id));
    }
    await db.query('ALTER TABLE audit DROP COLUMN identity');
    await ctx.close();
    return { itemId: itemId!, fileIds };
  } finally {
    await db.close();
  }
}
