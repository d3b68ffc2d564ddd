import type { Queryable } from '@vaultline/store';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { positiveInteger } from './limiter.ts';

/** Options of {@link postgresCounter}. */
export interface PostgresCounterOptions {
  /** The app's own database (`@vaultline/store`): its pool and prepared statements, or PGlite. */
  db: Pick<Queryable, 'query'>;
  /**
   * The table (lower-case letters, digits, `_`), created by the app's migrations with
   * {@link rateLimitTableSql}: the counter never creates it.
   */
  tableName: string;
  /** What is counted (letters, digits, `_`, `.`, `-`; at most 64): limits sharing a table count apart. */
  keyPrefix: string;
  /** Hits allowed per key and window. */
  points: number;
  /** The window, in seconds. */
  durationSeconds: number;
}

const TABLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const KEY_PREFIX = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * Checks a table name.
 *
 * @param tableName The table.
 * @returns The name.
 */
export function checkTableName(tableName: string): string {
  if (!TABLE_NAME.test(tableName))
    throw new RangeError(
      'tableName must be lower-case letters, digits and _ (at most 63), not starting with a digit',
    );
  return tableName;
}

/**
 * Checks a key prefix.
 *
 * @param keyPrefix The prefix.
 * @returns The prefix.
 */
export function checkKeyPrefix(keyPrefix: string): string {
  if (!KEY_PREFIX.test(keyPrefix))
    throw new RangeError('keyPrefix must be 1 to 64 letters, digits, _, . or -');
  return keyPrefix;
}

/**
 * The statement that creates a counter table: rate-limiter-flexible's layout (`key varchar(255)
 * PRIMARY KEY, points integer, expire bigint`). Put it in one of the app's migrations, which run
 * once under a lock (`@vaultline/store`'s `migrate`): counters created together by instances
 * starting together never race to create it. `IF NOT EXISTS`: a database where an earlier release
 * created the table at run time keeps it, rows included. The text never changes once released
 * (migrations are never edited).
 *
 * @param tableName The table (lower-case letters, digits, `_`).
 * @returns The statement.
 */
export function rateLimitTableSql(tableName: string): string {
  return `CREATE TABLE IF NOT EXISTS ${checkTableName(tableName)} (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
)`;
}

/**
 * An exact shared counter: rate-limiter-flexible's Postgres store over the app's own database,
 * one statement per operation, in a table the app's migrations created ({@link rateLimitTableSql};
 * the counter runs no DDL). Use it under {@link exactLimiter} (every hit counted in the store) or
 * {@link writeBehindLimiter} (hits counted in memory and added to it in batches).
 *
 * @param options The database, the table, the key prefix and the limit.
 * @returns The counter.
 */
export function postgresCounter(options: PostgresCounterOptions): RateLimiterPostgres {
  const { db } = options;
  const tableName = checkTableName(options.tableName);
  const keyPrefix = checkKeyPrefix(options.keyPrefix);
  return new RateLimiterPostgres({
    // rate-limiter-flexible calls query({ name, text, values }) and reads rows and rowCount; the
    // statements the limiters use (get, penalty, consume) return the rows they count.
    storeClient: {
      query: async (statement: { text: string; values?: unknown[] }) => {
        const rows = await db.query(statement.text, statement.values ?? []);
        return { rows, rowCount: rows.length };
      },
    },
    storeType: 'pool',
    tableName,
    tableCreated: true,
    keyPrefix,
    points: positiveInteger('points', options.points),
    duration: positiveInteger('durationSeconds', options.durationSeconds),
  });
}
