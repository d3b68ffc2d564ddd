// The store on a real, throwaway PostgreSQL cluster.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, type Migration, migrate, openDatabase, openPostgres } from '../src/index.ts';
import { type PostgresCluster, startPostgresCluster } from '../src/testing.ts';

const run = promisify(execFile);

let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgresCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'counters',
    sql: 'CREATE TABLE counters (key text PRIMARY KEY, hits bigint NOT NULL); CREATE INDEX counters_hits ON counters (hits)',
  },
  { version: 2, name: 'counters: when', sql: 'ALTER TABLE counters ADD COLUMN at bigint' },
];
const OPTIONS = { table: 'app_schema', lockKey: 4243 };

describe('openPostgres', () => {
  it('reads bigint as numbers, and fails a statement whose bigint a number cannot hold', async () => {
    const db = await openPostgres({ url: await cluster.createDatabase(), poolSize: 2 });
    try {
      expect(await db.query('SELECT 42::bigint AS n, $1::bigint AS m', [1_767_225_600_000])).toEqual([
        { n: 42, m: 1_767_225_600_000 },
      ]);
      await expect(db.query('SELECT 9007199254740993::bigint AS n')).rejects.toThrow(
        /beyond what a number holds/,
      );
      expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  });

  it('prepares each parameterised statement once per connection', async () => {
    const db = await openPostgres({ url: await cluster.createDatabase(), poolSize: 1 });
    try {
      for (let i = 0; i < 3; i++)
        expect(await db.query('SELECT $1::int + 1 AS n', [i])).toEqual([{ n: i + 1 }]);
      const prepared = await db.query<{ name: string }>(
        "SELECT name FROM pg_prepared_statements WHERE statement = 'SELECT $1::int + 1 AS n'",
      );
      expect(prepared).toHaveLength(1);
      expect(prepared[0]?.name).toMatch(/^vl_[0-9a-f]{40}$/);
    } finally {
      await db.close();
    }
  });

  it('commits a transaction on one connection, and rolls back one that throws', async () => {
    const db = await openDatabase({ kind: 'postgres', url: await cluster.createDatabase() });
    try {
      await db.exec('CREATE TABLE t (v text)');
      const backends = await db.transaction(async (tx) => {
        await tx.query('INSERT INTO t VALUES ($1)', ['kept']);
        const [a] = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        const [b] = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        return [a?.pid, b?.pid];
      });
      expect(backends[0]).toBe(backends[1]);
      await expect(
        db.transaction(async (tx) => {
          await tx.query('INSERT INTO t VALUES ($1)', ['dropped']);
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect(await db.query('SELECT v FROM t')).toEqual([{ v: 'kept' }]);
    } finally {
      await db.close();
    }
  });

  it('fails to open when the server cannot be reached, without its password in the error', async () => {
    const url = new URL(await cluster.createDatabase());
    url.port = String(cluster.port === 1 ? 2 : 1);
    url.password = 'not-to-be-shown-9f2c';
    const error = await openPostgres({ url: url.href }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).not.toContain('not-to-be-shown-9f2c');
  });
});

describe('migrate on PostgreSQL', () => {
  it('applies each migration once when many instances start together on a fresh database', async () => {
    for (let round = 0; round < 5; round++) {
      const url = await cluster.createDatabase();
      const dbs: Database[] = await Promise.all(
        Array.from({ length: 6 }, () => openPostgres({ url, poolSize: 2 })),
      );
      try {
        const results = await Promise.all(dbs.map((db) => migrate(db, MIGRATIONS, OPTIONS)));
        // One instance applied both; the others waited for the lock, then found them done.
        expect(results.filter((versions) => versions.length > 0)).toEqual([[1, 2]]);
        expect(await dbs[0]!.query(`SELECT version, name FROM ${OPTIONS.table} ORDER BY version`)).toEqual([
          { version: 1, name: 'counters' },
          { version: 2, name: 'counters: when' },
        ]);
      } finally {
        await Promise.all(dbs.map((db) => db.close()));
      }
    }
  });

  it('holds the lock only for the migration transaction', async () => {
    const url = await cluster.createDatabase();
    const db = await openPostgres({ url });
    try {
      await migrate(db, MIGRATIONS, OPTIONS);
      expect(
        await db.query("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1", [
          OPTIONS.lockKey,
        ]),
      ).toEqual([{ n: 0 }]);
    } finally {
      await db.close();
    }
  });
});

describe('loading each engine only when it is opened', () => {
  // A child process records every module it loads; the store's entry must load neither engine,
  // and opening one must not load the other.
  const modulesLoaded = async (open: string): Promise<string[]> => {
    const script = `
      import { registerHooks } from 'node:module';
      const loaded = [];
      registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); loaded.push(r.url); return r; } });
      const store = await import(${JSON.stringify(new URL('../src/index.ts', import.meta.url).href)});
      ${open}
      console.log(JSON.stringify(loaded));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
    return JSON.parse(stdout) as string[];
  };
  const pg = (urls: string[]) => urls.some((url) => /\/node_modules\/pg\//.test(url));
  const pglite = (urls: string[]) => urls.some((url) => /@electric-sql\/pglite/.test(url));

  it('loads neither engine for the entry alone, PGlite alone for PGlite, pg alone for PostgreSQL', async () => {
    const entry = await modulesLoaded('');
    expect([pg(entry), pglite(entry)]).toEqual([false, false]);
    const onPglite = await modulesLoaded('const db = await store.openPglite(); await db.close();');
    expect([pg(onPglite), pglite(onPglite)]).toEqual([false, true]);
    const url = await cluster.createDatabase();
    const onPostgres = await modulesLoaded(
      `const db = await store.openPostgres({ url: ${JSON.stringify(url)} }); await db.close();`,
    );
    expect([pg(onPostgres), pglite(onPostgres)]).toEqual([true, false]);
  });
});
