import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateMasterKey } from '../src/crypto/master-key.ts';
import { MIGRATIONS } from '../src/db/migrations.ts';
import { startTestVault, type TestVault } from '../src/testing.ts';
import { openVault } from '../src/vault.ts';
import { clientOf, expectNoSecrets, expectVaultError } from './support/helpers.ts';
import { type PostgresCluster, startPostgresCluster } from './support/postgres-cluster.ts';

const TTL_MS = 300;
const urls = new WeakMap<TestVault, string>();
const urlOf = (vault: TestVault) => urls.get(vault)!;

describe('several instances on one PostgreSQL database', () => {
  let cluster: PostgresCluster;
  let a: TestVault;
  let b: TestVault;
  const vaults: TestVault[] = [];
  const logLines: string[] = [];

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    const databaseUrl = await cluster.createDatabase();
    const masterKey = generateMasterKey();
    // Both start at once on an empty database: the migrations run once, under an advisory lock.
    const started = await Promise.allSettled([
      startTestVault({ databaseUrl, masterKey, logLines, cacheTtlMs: TTL_MS }),
      startTestVault({ databaseUrl, masterKey, logLines, cacheTtlMs: TTL_MS }),
    ]);
    for (const result of started) if (result.status === 'fulfilled') vaults.push(result.value);
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    [a, b] = vaults as [TestVault, TestVault];
    urls.set(a, databaseUrl);
  });

  afterAll(async () => {
    for (const vault of vaults) await vault.close();
    await cluster?.stop();
    expectNoSecrets(
      logLines,
      vaults.map((vault) => vault.adminKey),
    );
  });

  it('refuses an instance with another master key', async () => {
    await expect(startTestVault({ databaseUrl: urlOf(a), masterKey: generateMasterKey() })).rejects.toThrow(
      /master key does not match/,
    );
    await expect(
      openVault({
        databaseUrl: urlOf(a),
        masterKey: undefined,
        dataDir: undefined,
        cacheTtlMs: 0,
        createMasterKey: true,
      }),
    ).rejects.toThrow(/set VAULTLINE_MASTER_KEY/);
  });

  it('applies each migration once', async () => {
    const rows = await a.server.vault.db.query<{ version: number }>(
      'SELECT version FROM schema_migrations ORDER BY version',
    );
    expect(rows.map((row) => Number(row.version))).toEqual(MIGRATIONS.map((migration) => migration.version));
  });

  it('sees writes of the other instance at once', async () => {
    const onA = clientOf(a);
    const onB = clientOf(b, a.adminKey);
    const folder = await onA.addFolder({ folder: { title: 'Shared by two' } });
    const { id } = await onB.addItem({
      item: { label: 'written on B', password: 'pw-on-b', folderId: folder.id },
    });
    expect((await onA.getItem(id)).password).toBe('pw-on-b');
    await onA.updateItem({
      id,
      item: { label: 'written on B', password: 'pw-changed-on-a', folderId: folder.id },
    });
    expect((await onB.getItem(id)).password).toBe('pw-changed-on-a');
    await onB.deleteItems({ ids: [id] });
    expect(await onA.readItems({ ids: [id] })).toEqual([]);
  });

  it('applies a revoked key and a new right on the other instance within the cache time', async () => {
    const folder = await clientOf(a).addFolder({ folder: { title: 'Granted later' } });
    await a.admin.createUser({ login: 'two-user' });
    await a.admin.createRole({ name: 'two-role' });
    await a.admin.assignRole('two-user', 'two-role');
    const key = await a.admin.createKey({ label: 'two-key', login: 'two-user' });
    const onB = clientOf(b, key);
    expect(await onB.readUserFolders({ login: 'two-user' })).toEqual([]);
    await a.admin.grant('two-role', folder.id, 'R');
    await new Promise((resolve) => setTimeout(resolve, TTL_MS + 100));
    expect((await onB.readUserFolders({ login: 'two-user' })).map((f) => f.id)).toEqual([folder.id]);
    await a.admin.revokeKey('two-key');
    await new Promise((resolve) => setTimeout(resolve, TTL_MS + 100));
    await expectVaultError(onB.readUserFolders({ login: 'two-user' }), 'unauthorized', 401);
  });
});
