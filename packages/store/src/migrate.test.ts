// The migration runner on real PGlite (the PostgreSQL side, concurrent starts included, is in
// test/postgres.e2e.test.ts).
import { describe, expect, it } from 'vitest';
import type { Database } from './database.ts';
import { type Migration, migrate } from './migrate.ts';
import { openPglite } from './open.ts';

const OPTIONS = { table: 'app_schema', lockKey: 4242 };

const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'notes', sql: 'CREATE TABLE notes (id bigint PRIMARY KEY, body text NOT NULL)' },
  {
    version: 2,
    name: 'notes: tags and an index',
    sql: "ALTER TABLE notes ADD COLUMN tags text NOT NULL DEFAULT ''; CREATE INDEX notes_tags ON notes (tags)",
  },
];

async function withPglite(work: (db: Database) => Promise<void>): Promise<void> {
  const db = await openPglite();
  try {
    await work(db);
  } finally {
    await db.close();
  }
}

const applied = (db: Database) =>
  db.query<{ version: number; name: string }>(`SELECT version, name FROM ${OPTIONS.table} ORDER BY version`);

describe('migrate', () => {
  it('applies each migration once, in order, and records it with its name', () =>
    withPglite(async (db) => {
      expect(await migrate(db, MIGRATIONS.slice(0, 1), OPTIONS)).toEqual([1]);
      expect(await migrate(db, MIGRATIONS, OPTIONS)).toEqual([2]);
      expect(await migrate(db, MIGRATIONS, OPTIONS)).toEqual([]);
      expect(await applied(db)).toEqual([
        { version: 1, name: 'notes' },
        { version: 2, name: 'notes: tags and an index' },
      ]);
      await db.query("INSERT INTO notes (id, body, tags) VALUES (1, 'x', 'y')");
    }));

  it('leaves the schema as it was when a migration fails, the ones before it in the run included', () =>
    withPglite(async (db) => {
      const broken: Migration = { version: 3, name: 'broken', sql: 'ALTER TABLE nowhere ADD COLUMN x int' };
      await expect(migrate(db, [...MIGRATIONS, broken], OPTIONS)).rejects.toThrow(/nowhere/);
      expect(
        await db.query("SELECT count(*) AS n FROM pg_tables WHERE tablename IN ('notes', 'app_schema')"),
      ).toEqual([{ n: 0 }]);
      expect(await migrate(db, MIGRATIONS, OPTIONS)).toEqual([1, 2]);
    }));

  it('leaves alone the versions a newer release recorded', () =>
    withPglite(async (db) => {
      await migrate(
        db,
        [...MIGRATIONS, { version: 3, name: 'newer', sql: 'CREATE TABLE newer (x int)' }],
        OPTIONS,
      );
      expect(await migrate(db, MIGRATIONS, OPTIONS)).toEqual([]);
      expect((await applied(db)).map((row) => row.version)).toEqual([1, 2, 3]);
    }));

  it('keeps using a bookkeeping table of the earlier layout (version only), adding the two columns', () =>
    withPglite(async (db) => {
      await db.exec(`CREATE TABLE ${OPTIONS.table} (version integer PRIMARY KEY); INSERT INTO ${OPTIONS.table} VALUES (1);
        CREATE TABLE notes (id bigint PRIMARY KEY, body text NOT NULL)`);
      expect(await migrate(db, MIGRATIONS, OPTIONS)).toEqual([2]);
      expect(await applied(db)).toEqual([
        { version: 1, name: '' },
        { version: 2, name: 'notes: tags and an index' },
      ]);
    }));

  it('keeps apps apart: each has its own bookkeeping table', () =>
    withPglite(async (db) => {
      await migrate(db, MIGRATIONS, OPTIONS);
      const other = [{ version: 1, name: 'other app', sql: 'CREATE TABLE other_things (x int)' }];
      expect(await migrate(db, other, { table: 'other_schema', lockKey: 7 })).toEqual([1]);
    }));

  it('refuses a list out of order, a table name that is not plain, and a lock key that is no integer', () =>
    withPglite(async (db) => {
      const sql = 'SELECT 1';
      await expect(
        migrate(
          db,
          [
            { version: 2, name: 'a', sql },
            { version: 1, name: 'b', sql },
          ],
          OPTIONS,
        ),
      ).rejects.toThrow(/increasing order: 1 after 2/);
      await expect(
        migrate(
          db,
          [
            { version: 1, name: 'a', sql },
            { version: 1, name: 'b', sql },
          ],
          OPTIONS,
        ),
      ).rejects.toThrow(RangeError);
      await expect(migrate(db, [{ version: 0, name: 'a', sql }], OPTIONS)).rejects.toThrow(RangeError);
      await expect(migrate(db, [{ version: 1.5, name: 'a', sql }], OPTIONS)).rejects.toThrow(RangeError);
      await expect(migrate(db, [], { table: 'x; DROP TABLE notes', lockKey: 1 })).rejects.toThrow(
        /migrations table/,
      );
      await expect(migrate(db, [], { table: 'Schema', lockKey: 1 })).rejects.toThrow(/migrations table/);
      await expect(migrate(db, [], { table: 's', lockKey: 1.5 })).rejects.toThrow(/lock key/);
      expect(await db.query("SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'public'")).toEqual([
        { n: 0 },
      ]);
    }));
});
