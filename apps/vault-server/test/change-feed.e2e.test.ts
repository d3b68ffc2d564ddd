// The connection that listens to the database's change announcements, lost and found again: what
// the log says, what /readyz answers, and what the instance serves in between.

import { type PostgresCluster, startPostgresCluster } from '@vaultline/store/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestVault, type TestVault } from '../src/testing.ts';
import { expectNoSecrets, rawRequest } from './support/helpers.ts';

/** A cache time far longer than the test: only the announcements (or no cache) show a change. */
const LONG_TTL_MS = 600_000;
/** A password in the connection string (the test cluster trusts local connections and ignores it). */
const DB_PASSWORD = 'feed-db-pass-7c1e9a';

interface LogLine {
  level: number;
  msg: string;
  reason?: { name?: string; message?: string; code?: string };
  [field: string]: unknown;
}

describe("losing the database's change announcements (PostgreSQL)", () => {
  let cluster: PostgresCluster;
  let vault: TestVault;
  let databaseUrl: string;
  let database: string;
  /** A connection to the cluster's `postgres` database: ALTER DATABASE cannot run in the database itself. */
  let admin: pg.Client;
  const logLines: string[] = [];
  const secrets: string[] = [DB_PASSWORD];
  const logged = () => logLines.map((line) => JSON.parse(line) as LogLine);
  const until = async (check: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + 20_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const listeners = async () =>
    (
      await vault.server.vault.db.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN vaultline_changes' AND datname = current_database()`,
      )
    ).map((row) => Number(row.pid));
  const readyz = async () => {
    const answer = await fetch(`${vault.url}/readyz`);
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  };
  const allowConnections = (allow: boolean) =>
    admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS ${allow}`);

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    const url = new URL(await cluster.createDatabase());
    database = url.pathname.slice(1);
    admin = new pg.Client({ connectionString: new URL('/postgres', url).href });
    await admin.connect();
    url.password = DB_PASSWORD;
    databaseUrl = url.href;
    secrets.push(databaseUrl);
    vault = await startTestVault({ databaseUrl, logLines, cacheTtlMs: LONG_TTL_MS });
    secrets.push(vault.adminKey);
    await until(async () => (await listeners()).length === 1, 'the instance to listen');
  });

  afterAll(async () => {
    await allowConnections(true).catch(() => {});
    await admin?.end();
    await vault?.close();
    await cluster?.stop();
  });

  it('logs the loss with its reason, answers /readyz "degraded" meanwhile, and recovers', async () => {
    expect(await readyz()).toEqual({ status: 200, body: { status: 'ready' } });
    const key = await vault.admin.createKey({ label: 'feed-key' });
    secrets.push(key);
    const read = () =>
      rawRequest(vault.url, '/api/index.php/read/folder/1', { headers: { authorization: `Bearer ${key}` } });
    expect((await read()).status).not.toBe(401);

    // No new connection may reach the database for a while: the listener cannot come back.
    await allowConnections(false);
    const lostAfter = Date.now();
    const [pid] = await listeners();
    await vault.server.vault.db.query('SELECT pg_terminate_backend($1)', [pid]);
    await until(async () => (await readyz()).body.status === 'degraded', '/readyz to show the loss');
    const down = await readyz();
    expect(down).toEqual({
      status: 200,
      body: { status: 'degraded', changes: { listening: false, since: expect.any(String) } },
    });
    const since = Date.parse(String((down.body.changes as { since: string }).since));
    expect(since).toBeGreaterThanOrEqual(lostAfter - 1_000);
    expect(since).toBeLessThanOrEqual(Date.now());
    const lost = logged().find((line) => /change announcements lost/.test(line.msg));
    expect(lost).toMatchObject({
      level: 40,
      reason: {
        code: '57P01',
        message: expect.stringMatching(/terminating connection due to administrator command/),
      },
    });

    // Revoked by hand (another instance, an admin command): the announcement reaches nobody, and
    // this instance, which has just used the key, must not answer from a cache meanwhile.
    expect((await read()).status).not.toBe(401);
    await vault.server.vault.db.query(`UPDATE api_keys SET revoked_at = now() WHERE label = 'feed-key'`);
    expect((await read()).status).toBe(401);

    // Its attempts to listen again fail meanwhile, and say why (once per reason, not per attempt).
    const refused = () => logged().filter((line) => /cannot listen to the database/.test(line.msg));
    await until(async () => refused().length > 0, 'a failed attempt to listen again');
    expect(refused()[0]).toMatchObject({
      level: 40,
      attempts: 1,
      reason: { message: expect.stringMatching(/is not currently accepting connections/) },
    });
    // A second attempt (500 ms after the first) fails the same way: not logged again.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(refused()).toHaveLength(1);
    expect((await readyz()).body.status).toBe('degraded');

    await allowConnections(true);
    await until(async () => (await readyz()).body.status === 'ready', '/readyz to show the return');
    expect(await readyz()).toEqual({ status: 200, body: { status: 'ready' } });
    expect(await listeners()).toHaveLength(1);
    const back = logged().find((line) =>
      /listening to the database's change announcements again/.test(line.msg),
    );
    expect(back).toMatchObject({ level: 40, downMs: expect.any(Number) });
    expect(back?.attempts).toBeGreaterThanOrEqual(2);
    expectNoSecrets(logLines, secrets);
  });
});
