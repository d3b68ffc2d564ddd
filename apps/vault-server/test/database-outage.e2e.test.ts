import { createWireClient } from '@vaultline/protocol/wire';
import { type PostgresCluster, startPostgresCluster } from '@vaultline/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestVault } from '../src/testing.ts';
import { clientOf, expectJsonError, expectNoSecrets, rawRequest, startVaultOn } from './support/helpers.ts';

/** The answer while the database is unreachable: a 503 to try again, as `/readyz` says. */
const UNREACHABLE = 'The database is not reachable; try again shortly.';

describe('the database unreachable (a PostgreSQL restart)', () => {
  let cluster: PostgresCluster;
  let vault: TestVault;
  let itemId: number;
  let userKey: string;
  const logLines: string[] = [];

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    // No caches: every request reads the database, as one does the moment its cache ends.
    vault = await startVaultOn('postgres', cluster, { logLines, cacheTtlMs: 0 });
    const admin = clientOf(vault);
    const folder = await admin.addFolder({ folder: { title: 'Outage' } });
    itemId = (
      await admin.addItem({ item: { label: 'outage', password: 'outage-pw-1', folderId: folder.id } })
    ).id;
    await vault.admin.createUser({ login: 'olga' });
    userKey = await vault.admin.createKey({ label: 'olga key', login: 'olga' });
  });

  afterAll(async () => {
    await vault?.close();
    await cluster?.stop();
    expectNoSecrets(logLines, ['outage-pw-1', vault.adminKey, userKey]);
  });

  it('answers 503 with Retry-After while it is down, and serves again once it is back', async () => {
    // The test cluster commits asynchronously: written out first, the setup survives the stop.
    await vault.server.vault.db.query('CHECKPOINT');
    await cluster.pause();
    try {
      const readiness = await rawRequest(vault.url, '/readyz');
      expect(readiness.status).toBe(503);
      const asked = [
        { path: `/api/index.php/read/items/${itemId}`, key: vault.adminKey },
        { path: '/api/index.php/read/userfolders/olga', key: userKey },
        { path: `/api/index.php/read/listfiles/${itemId}`, key: vault.adminKey },
      ];
      for (const { path, key } of asked) {
        const answer = await rawRequest(vault.url, path, { headers: { authorization: `Bearer ${key}` } });
        const error = expectJsonError(answer, 503, 'server');
        expect(error.err).toBe(UNREACHABLE);
        expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      // The protocol client sees a server error with its status, not a refused key.
      const refused = await clientOf(vault)
        .readItems({ ids: [itemId] })
        .catch((error: unknown) => error as { code: string; status: number });
      expect(refused).toMatchObject({ code: 'server', status: 503 });
    } finally {
      await cluster.resume();
    }
    // Back: the same calls answer again, and the keys tried meanwhile were not counted as failed.
    const patient = createWireClient({ baseUrl: vault.url, auth: vault.adminKey, retry: { retries: 0 } });
    let items: { password: string }[] = [];
    for (let attempt = 0; attempt < 100 && items.length === 0; attempt++) {
      items = await patient.readItems({ ids: [itemId] }).catch(async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return [];
      });
    }
    expect(items.map((item) => item.password)).toEqual(['outage-pw-1']);
    expect((await rawRequest(vault.url, '/readyz')).status).toBe(200);
    const olga = await rawRequest(vault.url, '/api/index.php/read/userfolders/olga', {
      headers: { authorization: `Bearer ${userKey}` },
    });
    expect(olga.status).toBe(200);
    // An outage is logged as one, not as a defect of the server per request.
    expect(logLines.some((line) => line.includes('"status":500'))).toBe(false);
  });
});
