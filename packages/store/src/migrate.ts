/**
 * Schema migrations: an app's ordered list, each applied once, in one transaction under an
 * advisory lock, so that instances starting together on one database wait for each other instead
 * of racing (PostgreSQL), and the same code runs on PGlite.
 *
 * @module
 */

import type { Database } from './database.ts';

/** One step of an app's schema: never edited once released, only followed by another. */
export interface Migration {
  /** Its place in the order: positive, increasing along the list. */
  readonly version: number;
  /** What it does, recorded with it. */
  readonly name: string;
  /** The statements (a script: several statements separated by `;`, no parameters). */
  readonly sql: string;
}

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /**
   * The table that records the applied versions (`version integer PRIMARY KEY, name, applied_at`;
   * created when missing; a table of an earlier layout with `version` alone gains the two columns).
   */
  readonly table: string;
  /**
   * The key of the PostgreSQL advisory lock the migrations run under. One per app: every instance
   * of the app uses the same key, so they wait for each other.
   */
  readonly lockKey: number;
}

const TABLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Checks an app's list: each version a positive integer, higher than the one before.
 *
 * @param migrations The list.
 * @throws {RangeError} For a list out of order.
 */
function checkOrder(migrations: readonly Migration[]): void {
  let previous = 0;
  for (const { version } of migrations) {
    if (!Number.isSafeInteger(version) || version <= previous)
      throw new RangeError(
        `Migration versions must be positive integers in increasing order: ${String(version)} after ${previous}.`,
      );
    previous = version;
  }
}

/**
 * Brings a database's schema up to date: applies, in order, each migration of the list not yet
 * recorded as applied. Everything runs in one transaction that first takes
 * `pg_advisory_xact_lock(lockKey)`: instances starting together apply each migration once (the
 * others wait, then find it done), and a failing migration leaves the schema as it was. Versions
 * recorded in the database but absent from the list (a newer release's) are left alone.
 *
 * @param db The database.
 * @param migrations The app's migrations, in order.
 * @param options The bookkeeping table and the lock's key.
 * @returns The versions applied now (empty when the schema was up to date).
 */
export async function migrate(
  db: Database,
  migrations: readonly Migration[],
  options: MigrateOptions,
): Promise<number[]> {
  const { table, lockKey } = options;
  if (!TABLE_NAME.test(table))
    throw new RangeError('The migrations table must be lower-case letters, digits and _ (at most 63).');
  if (!Number.isSafeInteger(lockKey)) throw new RangeError('The lock key must be an integer.');
  checkOrder(migrations);
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [lockKey]);
    await tx.exec(`
CREATE TABLE IF NOT EXISTS ${table} (
  version integer PRIMARY KEY,
  name text NOT NULL DEFAULT '',
  applied_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE ${table}
  ADD COLUMN IF NOT EXISTS name text NOT NULL DEFAULT '',
  ADD COLUMN IF NOT EXISTS applied_at timestamptz NOT NULL DEFAULT now();`);
    const done = new Set(
      (await tx.query<{ version: number }>(`SELECT version FROM ${table}`)).map((row) => row.version),
    );
    const applied: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await tx.exec(migration.sql);
      await tx.query(`INSERT INTO ${table} (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    return applied;
  });
}
