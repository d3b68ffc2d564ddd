import type { Queryable } from '@vaultline/store';
import { LRUCache } from 'lru-cache';
import { storageKey } from './keys.ts';
import { ALLOWED, type Decision, type Limiter, positiveInteger, refused } from './limiter.ts';
import { DEFAULT_MAX_KEYS } from './limiters.ts';
import { checkKeyPrefix, checkTableName } from './postgres-counter.ts';

/** Options of {@link memorySlidingLimiter}. */
export interface MemorySlidingLimiterOptions {
  /** Hits allowed per key in any window of `durationSeconds`. */
  points: number;
  /** The window, in seconds. */
  durationSeconds: number;
  /** Keys kept (least recently used go first); 10 000 by default. */
  maxKeys?: number | undefined;
  /** The clock (epoch ms), for tests. */
  now?: (() => number) | undefined;
}

/** Options of {@link postgresSlidingLimiter}. */
export interface PostgresSlidingLimiterOptions {
  /** The app's own database (`@vaultline/store`): its pool, or PGlite. */
  db: Pick<Queryable, 'query'>;
  /** The table, created by the app's migrations with {@link slidingLimitTableSql}. */
  tableName: string;
  /** What is counted (letters, digits, `_`, `.`, `-`; at most 64): limits sharing a table count apart. */
  keyPrefix: string;
  /** Hits allowed per key in any window of `durationSeconds`. */
  points: number;
  /** The window, in seconds. */
  durationSeconds: number;
}

/**
 * A sliding-window limiter in this process's memory: at most `points` counted hits per key in any
 * window of `durationSeconds` (a sliding log of each key's hits); refused hits are not counted, and
 * a refusal's `retryAfterSeconds` is when the oldest counted hit leaves the window. Bounded:
 * `maxKeys` keys, each forgotten a window after its last counted hit.
 *
 * @param options The limit.
 * @returns The limiter.
 */
export function memorySlidingLimiter(options: MemorySlidingLimiterOptions): Limiter {
  const points = positiveInteger('points', options.points);
  const durationMs = positiveInteger('durationSeconds', options.durationSeconds) * 1000;
  const now = options.now ?? Date.now;
  // Each key's counted hits, oldest first.
  const logs = new LRUCache<string, number[]>({
    max: positiveInteger('maxKeys', options.maxKeys ?? DEFAULT_MAX_KEYS),
    ttl: durationMs,
    updateAgeOnGet: false,
  });
  return {
    points,
    async hit(rawKey): Promise<Decision> {
      const key = storageKey(rawKey);
      const at = now();
      const log = logs.get(key) ?? [];
      let gone = 0;
      while (gone < log.length && (log[gone] as number) <= at - durationMs) gone++;
      if (gone > 0) log.splice(0, gone);
      if (log.length >= points) return refused((log[0] as number) + durationMs - at);
      log.push(at);
      logs.set(key, log);
      return ALLOWED;
    },
    flush: async () => {},
    close: async () => {},
  };
}

/**
 * The statement that creates a sliding-window table for {@link postgresSlidingLimiter}: one row
 * per key with its counted hits (epoch ms, oldest first), the time of its last hit and whether that
 * hit was allowed. Put it in one of the app's migrations (the limiter runs no DDL); its text never
 * changes once released.
 *
 * @param tableName The table (lower-case letters, digits, `_`).
 * @returns The statement.
 */
export function slidingLimitTableSql(tableName: string): string {
  return `CREATE TABLE IF NOT EXISTS ${checkTableName(tableName)} (
  key text PRIMARY KEY,
  hits bigint[] NOT NULL,
  at bigint NOT NULL,
  allowed boolean NOT NULL
)`;
}

// The database's clock, in epoch ms.
const DB_NOW_MS = 'floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

/**
 * A sliding-window limiter whose every hit is one statement in a database every instance shares:
 * exact across instances and restarts, at most `points` counted hits per key in any window of
 * `durationSeconds`, refused hits not counted.
 *
 * Each hit is one `INSERT … ON CONFLICT (key) DO UPDATE`: the key's row lock serialises the hits of
 * one key, and the update reads the row as locked (the latest committed version, under READ
 * COMMITTED too), so two instances never both take the last place. Time is the database's
 * (`clock_timestamp()`, read once the row is locked): one clock for every instance, so the window is
 * exact however their clocks drift, and the hits of a key are logged in the order they were decided.
 * A store error is thrown to the caller, who decides whether to refuse.
 *
 * @param options The database, the table, the key prefix and the limit.
 * @returns The limiter.
 */
export function postgresSlidingLimiter(options: PostgresSlidingLimiterOptions): Limiter {
  const { db } = options;
  const table = checkTableName(options.tableName);
  const keyPrefix = checkKeyPrefix(options.keyPrefix);
  const points = positiveInteger('points', options.points);
  const durationMs = positiveInteger('durationSeconds', options.durationSeconds) * 1000;
  const statement = `INSERT INTO ${table} AS t (key, hits, at, allowed)
SELECT $1, ARRAY[n.at], n.at, true FROM (SELECT ${DB_NOW_MS} AS at) n
ON CONFLICT (key) DO UPDATE SET (hits, at, allowed) = (
  SELECT CASE WHEN w.kept < $2 THEN w.hits || n.at ELSE w.hits END, n.at, w.kept < $2
  FROM (SELECT ${DB_NOW_MS} AS at) n
  CROSS JOIN LATERAL (
    SELECT coalesce(array_agg(h ORDER BY h), '{}') AS hits, count(*) AS kept
    FROM unnest(t.hits) AS h
    WHERE h > n.at - $3
  ) w
)
RETURNING allowed, hits[1] AS oldest, at`;
  return {
    points,
    async hit(key): Promise<Decision> {
      const rows = await db.query<{ allowed: boolean; oldest: string | number; at: string | number }>(
        statement,
        [`${keyPrefix}:${storageKey(key)}`, points, durationMs],
      );
      const row = rows[0];
      if (!row) throw new Error(`the sliding-window statement on ${table} returned no row`);
      if (row.allowed) return ALLOWED;
      return refused(Number(row.oldest) + durationMs - Number(row.at));
    },
    flush: async () => {},
    close: async () => {},
  };
}
