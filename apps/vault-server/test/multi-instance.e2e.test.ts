import { type PostgresCluster, startPostgresCluster } from '@vaultline/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateMasterKey } from '../src/crypto/master-key.ts';
import { CHANGES_CHANNEL } from '../src/db/changes.ts';
import { MIGRATIONS } from '../src/db/migrations.ts';
import { REQUEST_LIMIT_FLUSH_MS } from '../src/http/limits.ts';
import { hashKey } from '../src/store/api-keys.ts';
import type { ItemRow } from '../src/store/item-row.ts';
import { startTestVault, type TestVault } from '../src/testing.ts';
import { openVault } from '../src/vault.ts';
import {
  clientOf,
  expectJsonError,
  expectNoSecrets,
  expectVaultError,
  rawRequest,
} from './support/helpers.ts';

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

  describe("caches kept coherent by the database's announcements", () => {
    // A cache time far longer than any test: only the announcements can make a change visible.
    const LONG_TTL_MS = 600_000;
    let e: TestVault;
    let f: TestVault;
    let databaseUrl: string;
    const listeners = async () =>
      (
        await e.server.vault.db.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN vaultline_changes' AND datname = current_database()`,
        )
      ).map((row) => Number(row.pid));
    const until = async (check: () => Promise<boolean>, what: string) => {
      const deadline = Date.now() + 10_000;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    // An item id no row has: only the marker below names it.
    const MARKER_ID = 2 ** 40;
    /**
     * Waits until `vault` has heard every announcement committed so far. PostgreSQL delivers a
     * listener's notifications in the order their transactions committed, and the listener
     * handles each as it arrives: once `vault` has handled a marker sent now (it forgets a row
     * planted in its item cache), it has handled every change committed before it.
     */
    const heardAll = async (vault: TestVault) => {
      const { itemCache } = vault.server.vault.ctx;
      itemCache.set(MARKER_ID, { id: MARKER_ID } as ItemRow);
      expect(itemCache.get(MARKER_ID)).toBeDefined();
      await e.server.vault.db.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, `items:${MARKER_ID}`]);
      await until(
        async () => itemCache.get(MARKER_ID) === undefined,
        'the earlier announcements to be heard',
      );
    };

    beforeAll(async () => {
      databaseUrl = await cluster.createDatabase();
      const masterKey = generateMasterKey();
      const options = { databaseUrl, masterKey, logLines, cacheTtlMs: LONG_TTL_MS };
      e = await startTestVault(options);
      vaults.push(e);
      f = await startTestVault(options);
      vaults.push(f);
      await until(async () => (await listeners()).length === 2, 'both instances to listen');
    });

    it('shows an item changed on another instance or by hand at once, not after the cache time', async () => {
      const onE = clientOf(e);
      const onF = clientOf(f, e.adminKey);
      const folder = await onE.addFolder({ folder: { title: 'Announced' } });
      const { id } = await onE.addItem({
        item: { label: 'announced', password: 'pw-first', folderId: folder.id },
      });
      // Read twice on F: the row is cached there now.
      expect((await onF.getItem(id)).password).toBe('pw-first');
      // F serves the row from its cache: a change that announces nothing stays unseen there.
      await e.server.vault.db.exec(`
        ALTER TABLE items DISABLE TRIGGER items_updated;
        UPDATE items SET description = 'unannounced' WHERE id = ${id};
        ALTER TABLE items ENABLE TRIGGER items_updated;`);
      expect((await onF.getItem(id)).description).toBe('');
      expect((await onE.getItem(id)).description).toBe('unannounced');
      await onE.updateItem({ id, item: { label: 'announced', password: 'pw-second', folderId: folder.id } });
      await until(async () => (await onF.getItem(id)).password === 'pw-second', 'F to show the update');
      // A statement run by hand, as another tool would: no instance took part.
      await e.server.vault.db.query(`UPDATE items SET label = 'renamed by hand' WHERE id = $1`, [id]);
      await until(async () => (await onF.getItem(id)).label === 'renamed by hand', 'F to show the hand edit');
      await e.server.vault.db.query('DELETE FROM items WHERE id = $1', [id]);
      await until(
        async () => (await onF.readItems({ ids: [id] })).length === 0,
        'F to forget the deleted item',
      );
    });

    it('applies a revoked key on the other instance at once', async () => {
      const key = await e.admin.createKey({ label: 'announced-key' });
      const onF = clientOf(f, key);
      expect(await onF.readUserFolders({ login: 'nobody-here' }).catch(() => 'answered')).toBeDefined();
      await e.admin.revokeKey('announced-key');
      await until(
        async () =>
          (
            await rawRequest(f.url, '/api/index.php/read/items/1', {
              headers: { authorization: `Bearer ${key}` },
            })
          ).status === 401,
        'F to refuse the revoked key',
      );
    });

    it('does not cache a key read before another instance revoked it', async () => {
      // The race: F reads the key (valid), E revokes it and F hears so, then F's read returns. A
      // result read before the announcement must not be cached, or the revoked key is accepted on
      // F until the cache time ends (ten minutes here).
      const key = await e.admin.createKey({ label: 'revoked-mid-read' });
      const witness = await e.admin.createKey({ label: 'revoked-mid-read-witness' });
      const onF = (k: string) =>
        rawRequest(f.url, '/api/index.php/read/userfolders/nobody-here', {
          headers: { authorization: `Bearer ${k}` },
        });
      // A key F has cached: F's caches are cleared when it hears of a change to access. F must
      // have heard of both keys' creation first, or that late news would clear the witness.
      await heardAll(f);
      await onF(witness);
      expect(f.server.vault.ctx.keyCache.get(hashKey(witness))).toBeDefined();
      // Hold F's lookup of `key` after the database answered it, before the key check goes on.
      const db = f.server.vault.db;
      const query = db.query.bind(db);
      let reached!: () => void;
      const lookupDone = new Promise<void>((resolve) => {
        reached = resolve;
      });
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      db.query = (async (sql: string, params?: readonly unknown[]) => {
        const rows = await query(sql, params);
        if (/FROM api_keys k/.test(sql) && params?.[0] === hashKey(key)) {
          reached();
          await gate;
        }
        return rows;
      }) as typeof db.query;
      try {
        const first = onF(key);
        await lookupDone;
        await e.admin.revokeKey('revoked-mid-read');
        await until(
          async () => f.server.vault.ctx.keyCache.get(hashKey(witness)) === undefined,
          'F to hear of the revocation',
        );
        release();
        // Read before the revocation: this one request may pass.
        expect([200, 404]).toContain((await first).status);
      } finally {
        db.query = query;
      }
      expectJsonError(await onF(key), 401, 'unauthorized');
    });

    it('never serves a row changed while the announcements were lost', async () => {
      const onE = clientOf(e);
      const onF = clientOf(f, e.adminKey);
      const folder = await onE.addFolder({ folder: { title: 'Missed' } });
      const { id } = await onE.addItem({
        item: { label: 'missed', password: 'pw-before', folderId: folder.id },
      });
      expect((await onF.getItem(id)).password).toBe('pw-before');
      const before = await listeners();
      await e.server.vault.db.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [
        before,
      ]);
      await until(async () => (await listeners()).length === 0, 'the listeners to be gone');
      // Changed while nobody listens: this announcement reaches no one.
      await e.server.vault.db.query(`UPDATE items SET label = 'changed unheard' WHERE id = $1`, [id]);
      await until(async () => (await listeners()).length === 2, 'both instances to listen again');
      expect((await listeners()).some((pid) => before.includes(pid))).toBe(false);
      expect((await onF.getItem(id)).label).toBe('changed unheard');
    });
  });

  describe('shared limits', () => {
    let c: TestVault;
    let d: TestVault;

    beforeAll(async () => {
      const databaseUrl = await cluster.createDatabase();
      const masterKey = generateMasterKey();
      const options = { databaseUrl, masterKey, logLines, rateLimitPerMinute: 30, failedKeyLimit: 3 };
      c = await startTestVault(options);
      vaults.push(c);
      d = await startTestVault(options);
      vaults.push(d);
      await c.admin.createUser({ login: 'limit-user' });
    });

    const read = (vault: TestVault, key: string, localAddress: string) =>
      rawRequest(vault.url, '/api/index.php/read/userfolders/limit-user', {
        localAddress,
        headers: { authorization: `Bearer ${key}` },
      });

    it('counts the request rate limit of an address across instances, written behind in batches', async () => {
      const shared = async () =>
        Number(
          (
            await c.server.vault.db.query<{ points: number }>(
              'SELECT points FROM vaultline_rate_limits WHERE key = $1',
              ['req:127.0.0.20'],
            )
          )[0]?.points ?? 0,
        );
      const afterBatch = async (points: number) => {
        const deadline = Date.now() + 5_000;
        while ((await shared()) < points && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, REQUEST_LIMIT_FLUSH_MS));
        expect(await shared()).toBe(points);
      };
      const statusesOn = async (vault: TestVault, count: number) => {
        const statuses: number[] = [];
        for (let i = 0; i < count; i++) statuses.push((await read(vault, c.adminKey, '127.0.0.20')).status);
        return statuses;
      };
      // 30 per minute for the address, whichever instance answers: 20 on C, shared after a batch…
      expect(await statusesOn(c, 20)).toEqual(Array(20).fill(200));
      await afterBatch(20);
      // …so D, which starts from the shared count, allows the 10 left and refuses the rest.
      expect(await statusesOn(d, 20)).toEqual([...Array(10).fill(200), ...Array(10).fill(429)]);
      await afterBatch(30);
      // C learns D's hits with its next batch's answer: at most one more request gets through there.
      const onC = await statusesOn(c, 1);
      await new Promise((resolve) => setTimeout(resolve, REQUEST_LIMIT_FLUSH_MS * 3));
      expect(
        [...onC, ...(await statusesOn(c, 3))].filter((status) => status === 200).length,
      ).toBeLessThanOrEqual(1);
      const limited = await read(d, c.adminKey, '127.0.0.20');
      expectJsonError(limited, 429, 'rate_limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect((await read(d, c.adminKey, '127.0.0.21')).status).toBe(200);
    });

    it('counts the failed-key lockout across instances, and never locks out a valid key', async () => {
      for (let i = 0; i < 3; i++) {
        const target = i % 2 === 0 ? c : d;
        expectJsonError(await read(target, `vlk_wrong-${i}`, '127.0.0.22'), 401, 'unauthorized');
      }
      expectJsonError(await read(d, 'vlk_wrong-on-d', '127.0.0.22'), 429, 'rate_limited');
      expectJsonError(await read(c, 'vlk_wrong-on-c', '127.0.0.22'), 429, 'rate_limited');
      expect((await read(c, c.adminKey, '127.0.0.22')).status).toBe(200);
      expect((await read(d, c.adminKey, '127.0.0.22')).status).toBe(200);
    });
  });

  it('fails readyz while the database is down and recovers after, on every instance', async () => {
    const ready = async (vault: TestVault) => (await fetch(`${vault.url}/readyz`)).status;
    expect(await ready(a)).toBe(200);
    expect(await ready(b)).toBe(200);
    await cluster.pause();
    try {
      expect(await ready(a)).toBe(503);
      expect(await ready(b)).toBe(503);
      const down = await rawRequest(a.url, '/api/index.php/read/userfolders/two-user', {
        headers: { authorization: `Bearer ${a.adminKey}` },
      });
      expect(down.status).toBeGreaterThanOrEqual(500);
      expect(down.contentType).toMatch(/application\/json/);
    } finally {
      await cluster.resume();
    }
    const until = Date.now() + 30_000;
    const statuses = async () => [await ready(a), await ready(b)];
    let now = await statuses();
    while (now.some((status) => status !== 200) && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      now = await statuses();
    }
    expect(now).toEqual([200, 200]);
    expect(await clientOf(a).readUserFolders({ login: 'two-user' })).toBeDefined();
  });
});
