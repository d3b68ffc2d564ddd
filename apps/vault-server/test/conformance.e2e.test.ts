import { runConformance } from '@vaultline/protocol/conformance';
import { type PostgresCluster, startPostgresCluster } from '@vaultline/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestVault } from '../src/testing.ts';
import { expectNoSecrets, STORES, startVaultOn } from './support/helpers.ts';

describe.each(STORES)('protocol conformance suite on %s', (store) => {
  let cluster: PostgresCluster | undefined;
  let vault: TestVault;
  const logLines: string[] = [];

  beforeAll(async () => {
    if (store === 'postgres') cluster = await startPostgresCluster();
    vault = await startVaultOn(store, cluster, { logLines });
    await vault.seedDemo();
  });

  afterAll(async () => {
    await vault?.close();
    await cluster?.stop();
    expectNoSecrets(logLines, [vault.adminKey]);
  });

  it('passes every operation with an admin key', async () => {
    const report = await runConformance({ baseUrl: vault.url, apiKey: vault.adminKey, login: 'alice' });
    expect(report.results.filter((result) => result.ok !== true)).toEqual([]);
    expect(report.results).toHaveLength(16);
    expect(report.ok).toBe(true);
  });

  it('leaves the vault as it found it', async () => {
    const before = await vault.server.vault.db.query('SELECT count(*)::int AS n FROM items');
    await runConformance({ baseUrl: vault.url, apiKey: vault.adminKey, login: 'bob' });
    expect(await vault.server.vault.db.query('SELECT count(*)::int AS n FROM items')).toEqual(before);
  });
});
