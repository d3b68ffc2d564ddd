import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { positiveInteger } from './limiter.ts';

/** What a query returns: the rows (an app's own `Database`), or a pg/PGlite result with them. */
export type QueryRows =
  | readonly unknown[]
  | { rows: readonly unknown[]; rowCount?: number | null | undefined };

/** Options of {@link postgresCounter}. */
export interface PostgresCounterOptions {
  /**
   * Runs one parameterised statement on the app's own database (a pg `Pool`, PGlite, or a wrapper
   * that returns the rows), e.g. `(text, values) => db.query(text, values)`.
   */
  query: (text: string, values?: unknown[]) => Promise<QueryRows>;
  /** The table (letters, digits, `_`): rate-limiter-flexible's `key varchar(255), points, expire`. */
  tableName: string;
  /** True when the app's migrations create the table; otherwise it is created (if missing) first. */
  tableCreated?: boolean | undefined;
  /** What is counted (letters, digits, `_`, `.`, `-`; at most 64): limits sharing a table count apart. */
  keyPrefix: string;
  /** Hits allowed per key and window. */
  points: number;
  /** The window, in seconds. */
  durationSeconds: number;
}

const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const KEY_PREFIX = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * An exact shared counter: rate-limiter-flexible's Postgres store over the app's own database,
 * one statement per operation. Use it under {@link exactLimiter} (every hit counted in the store)
 * or {@link writeBehindLimiter} (hits counted in memory and added to it in batches).
 *
 * @param options The database, the table, the key prefix and the limit.
 * @returns The counter, once its table exists.
 */
export async function postgresCounter(options: PostgresCounterOptions): Promise<RateLimiterPostgres> {
  const { query, tableName, keyPrefix } = options;
  if (!TABLE_NAME.test(tableName))
    throw new RangeError('tableName must be letters, digits and _ (at most 63), starting with a letter or _');
  if (!KEY_PREFIX.test(keyPrefix))
    throw new RangeError('keyPrefix must be 1 to 64 letters, digits, _, . or -');
  const points = positiveInteger('points', options.points);
  const duration = positiveInteger('durationSeconds', options.durationSeconds);
  let settle: ((error?: unknown) => void) | undefined;
  let early: { error: unknown } | undefined;
  const ready = (error?: unknown) => {
    if (settle) settle(error);
    else early = { error };
  };
  const counter = new RateLimiterPostgres(
    {
      // rate-limiter-flexible calls query({ name, text, values }) and reads rows and rowCount.
      storeClient: {
        query: async (statement: { text: string; values?: unknown[] }) => {
          const result = await query(statement.text, statement.values);
          if (Array.isArray(result)) return { rows: result, rowCount: result.length };
          const { rows, rowCount } = result as { rows: readonly unknown[]; rowCount?: number | null };
          // PGlite counts only changed rows (0 for a SELECT); the library reads rowCount for both.
          return { rows, rowCount: Math.max(rowCount ?? 0, rows.length) };
        },
      },
      storeType: 'pool',
      tableName,
      tableCreated: options.tableCreated ?? false,
      keyPrefix,
      points,
      duration,
    },
    (error?: unknown) => ready(error),
  );
  const error = early
    ? early.error
    : await new Promise<unknown>((resolve) => {
        settle = resolve;
      });
  if (error) throw error;
  return counter;
}
