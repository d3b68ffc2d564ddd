// Instances started together on a database nobody has used yet, and a database an earlier release
// used: each start must succeed, and the shared limits must count in the table the migrations made.
import { migrate, openPostgres } from '@vaultline/store';
import { type PostgresCluster, startPostgresCluster } from '@vaultline/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMIT_TABLE } from '../src/constants.ts';
import { generateMasterKey } from '../src/crypto/master-key.ts';
import { MIGRATION_LOCK_KEY, MIGRATIONS, MIGRATIONS_TABLE } from '../src/db/migrations.ts';
import { createLimiters } from '../src/http/limits.ts';
import { startTestVault } from '../src/testing.ts';
import { openVault, type Vault } from '../src/vault.ts';
import { expectJsonError, rawRequest } from './support/helpers.ts';

/** Fresh databases tried: before the fix, about 3 in 10 failed (every run of 10 failed; 16 make a pass by chance under 1%). */
const ROUNDS = 16;
/** Instances on each. */
const INSTANCES = 4;

describe('the first start on a fresh PostgreSQL database', () => {
  let cluster: PostgresCluster;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it(`creates and uses the shared limits of ${INSTANCES} instances at once, on each of ${ROUNDS} fresh databases`, async () => {
    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const databaseUrl = await cluster.createDatabase();
      const masterKey = generateMasterKey();
      const options = { databaseUrl, masterKey, dataDir: undefined, cacheTtlMs: 0, createMasterKey: false };
      const vaults: Vault[] = await Promise.all(Array.from({ length: INSTANCES }, () => openVault(options)));
      try {
        // Instances that finished migrating at the same moment create their limiters together,
        // and each counts a failed key at once.
        const started = await Promise.allSettled(
          vaults.map(async (vault) => {
            const limiters = createLimiters(vault.db, { rateLimitPerMinute: 5, failedKeyLimit: INSTANCES });
            try {
              return (await limiters.failedKeys.hit('198.51.100.7')).allowed;
            } finally {
              await limiters.close();
            }
          }),
        );
        for (const result of started)
          if (result.status === 'rejected') failures.push(`round ${round}: ${String(result.reason)}`);
          else if (!result.value) failures.push(`round ${round}: a first failed key was refused`);
        const [counted] = await vaults[0]!.db.query<{ points: number }>(
          `SELECT points FROM ${RATE_LIMIT_TABLE} WHERE key = 'badkey:198.51.100.7'`,
        );
        if (counted?.points !== INSTANCES)
          failures.push(`round ${round}: ${counted?.points ?? 0} failed keys counted, not ${INSTANCES}`);
      } finally {
        await Promise.all(vaults.map((vault) => vault.close()));
      }
    }
    expect(failures).toEqual([]);
  });

  it('upgrades a database an earlier release migrated, its rate-limit table and counts kept', async () => {
    const databaseUrl = await cluster.createDatabase();
    const db = await openPostgres({ url: databaseUrl });
    try {
      // What the earlier release left: its bookkeeping table, migrations 1 to 5, and the table
      // rate-limiter-flexible created at run time, holding a lockout count of 127.0.0.1.
      await db.exec(
        'CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      await migrate(db, MIGRATIONS.slice(0, 5), { table: MIGRATIONS_TABLE, lockKey: MIGRATION_LOCK_KEY });
      await db.exec(`CREATE TABLE IF NOT EXISTS "${RATE_LIMIT_TABLE}" (
      key varchar(255) PRIMARY KEY,
      points integer NOT NULL DEFAULT 0,
      expire bigint
    );`);
      await db.query(`INSERT INTO ${RATE_LIMIT_TABLE} (key, points, expire) VALUES ($1, 2, $2)`, [
        'badkey:127.0.0.1',
        Date.now() + 600_000,
      ]);
    } finally {
      await db.close();
    }

    const vault = await startTestVault({ databaseUrl, failedKeyLimit: 3 });
    try {
      const versions = await vault.server.vault.db.query<{ version: number }>(
        `SELECT version FROM ${MIGRATIONS_TABLE} ORDER BY version`,
      );
      expect(versions.map((row) => row.version)).toEqual(MIGRATIONS.map((migration) => migration.version));
      // Two failed keys counted before the upgrade: the third is the last one allowed.
      const unknown = { headers: { authorization: 'Bearer vlk_not-a-key-0000000000000000' } };
      expectJsonError(
        await rawRequest(vault.url, '/api/index.php/read/items/1', unknown),
        401,
        'unauthorized',
      );
      expectJsonError(
        await rawRequest(vault.url, '/api/index.php/read/items/1', unknown),
        429,
        'rate_limited',
      );
    } finally {
      await vault.close();
    }
  });
});
