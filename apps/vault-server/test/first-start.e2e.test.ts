// Instances started together on a database nobody has used yet: each start must succeed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateMasterKey } from '../src/crypto/master-key.ts';
import { createLimiters } from '../src/http/limits.ts';
import { openVault, type Vault } from '../src/vault.ts';
import { type PostgresCluster, startPostgresCluster } from './support/postgres-cluster.ts';

/** Fresh databases tried. */
const ROUNDS = 10;
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

  it(`creates the shared limits of ${INSTANCES} instances at once, on each of ${ROUNDS} fresh databases`, async () => {
    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const databaseUrl = await cluster.createDatabase();
      const masterKey = generateMasterKey();
      const options = { databaseUrl, masterKey, dataDir: undefined, cacheTtlMs: 0, createMasterKey: false };
      const vaults: Vault[] = await Promise.all(Array.from({ length: INSTANCES }, () => openVault(options)));
      try {
        const limits = { rateLimitPerMinute: 5, failedKeyLimit: 2 };
        const created = await Promise.allSettled(vaults.map((vault) => createLimiters(vault.db, limits)));
        for (const result of created)
          if (result.status === 'rejected') failures.push(`round ${round}: ${String(result.reason)}`);
          else await result.value.close();
      } finally {
        await Promise.all(vaults.map((vault) => vault.close()));
      }
    }
    expect(failures).toEqual([]);
  });
});
