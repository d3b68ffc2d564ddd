import type { Queryable } from '@vaultline/store';
import { LRUCache } from 'lru-cache';
import { storageKey } from './keys.ts';
import { ALLOWED, type Decision, type Limiter, positiveInteger, refused } from './limiter.ts';
import { DEFAULT_MAX_KEYS } from './limiters.ts';
import { checkKeyPrefix, checkTableName } from './postgres-counter.ts';

/** The limit of a token bucket: a burst, then a steady rate. */
export interface TokenBucketLimit {
  /** Hits a key may make at once when it has been idle: the bucket's size. */
  burst: number;
  /** Hits the key regains per minute, up to `burst`. */
  perMinute: number;
}

/** Options of {@link memoryTokenBucket}. */
export interface MemoryTokenBucketOptions extends TokenBucketLimit {
  /** Keys kept (least recently used go first); 10 000 by default. */
  maxKeys?: number | undefined;
  /** The clock (epoch ms), for tests. */
  now?: (() => number) | undefined;
}

/** Options of {@link postgresTokenBucket}. */
export interface PostgresTokenBucketOptions extends TokenBucketLimit {
  /** The app's own database (`@vaultline/store`): its pool, or PGlite. */
  db: Pick<Queryable, 'query'>;
  /** The table, created by the app's migrations with {@link tokenBucketTableSql}. */
  tableName: string;
  /** What is counted (letters, digits, `_`, `.`, `-`; at most 64): limits sharing a table count apart. */
  keyPrefix: string;
}

function checked(limit: TokenBucketLimit) {
  const burst = positiveInteger('burst', limit.burst);
  const perMinute = positiveInteger('perMinute', limit.perMinute);
  return { burst, perMs: perMinute / 60_000 };
}

/** When a key holding `tokens` (< 1) has one again, as a refusal. */
const refusedFor = (tokens: number, perMs: number) => refused((1 - tokens) / perMs);

/**
 * A token bucket in this process's memory: each key may make `burst` hits at once, and regains
 * `perMinute` of them a minute, up to `burst`. Refused hits are not counted; a refusal's
 * `retryAfterSeconds` is when the key has a token again. Over any interval of `t` minutes a key
 * makes at most `burst + perMinute × t` hits, however the interval is placed: a counter that
 * estimates its minute from clock-minute buckets (TeamPass's) never counts more than
 * `burst + perMinute` of them. Bounded: `maxKeys` keys, each forgotten once its bucket is full again.
 *
 * @param options The limit.
 * @returns The limiter.
 */
export function memoryTokenBucket(options: MemoryTokenBucketOptions): Limiter {
  const { burst, perMs } = checked(options);
  const now = options.now ?? Date.now;
  const buckets = new LRUCache<string, { tokens: number; at: number }>({
    max: positiveInteger('maxKeys', options.maxKeys ?? DEFAULT_MAX_KEYS),
    // A bucket left alone this long is full: forgetting it changes nothing.
    ttl: Math.ceil(burst / perMs),
    updateAgeOnGet: false,
  });
  return {
    points: burst,
    async hit(rawKey): Promise<Decision> {
      const key = storageKey(rawKey);
      const at = now();
      const bucket = buckets.get(key);
      const tokens = bucket ? Math.min(burst, bucket.tokens + Math.max(0, at - bucket.at) * perMs) : burst;
      if (tokens < 1) {
        // Not counted: the bucket keeps what it had and when.
        return refusedFor(tokens, perMs);
      }
      buckets.set(key, { tokens: tokens - 1, at });
      return ALLOWED;
    },
    flush: async () => {},
    close: async () => {},
  };
}

/**
 * The statement that creates a token-bucket table for {@link postgresTokenBucket}: one row per key
 * with its tokens when last hit, the time of that hit and whether it was allowed. Put it in one of
 * the app's migrations (the limiter runs no DDL); its text never changes once released.
 *
 * @param tableName The table (lower-case letters, digits, `_`).
 * @returns The statement.
 */
export function tokenBucketTableSql(tableName: string): string {
  return `CREATE TABLE IF NOT EXISTS ${checkTableName(tableName)} (
  key text PRIMARY KEY,
  tokens double precision NOT NULL,
  at bigint NOT NULL,
  allowed boolean NOT NULL
)`;
}

// The database's clock, in epoch ms.
const DB_NOW_MS = 'floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

/**
 * A token bucket whose every hit is one statement in a database every instance shares: exact
 * across instances and restarts, with the limits of {@link memoryTokenBucket}.
 *
 * Each hit is one `INSERT … ON CONFLICT (key) DO UPDATE`: the key's row lock serialises the hits of
 * one key, and the update reads the row as locked (its latest committed version, under READ
 * COMMITTED too), so two instances never both take the last token. Time is the database's
 * (`clock_timestamp()`, read once the row is locked): one clock for every instance. A store error is
 * thrown to the caller, who decides whether to refuse.
 *
 * @param options The database, the table, the key prefix and the limit.
 * @returns The limiter.
 */
export function postgresTokenBucket(options: PostgresTokenBucketOptions): Limiter {
  const { db } = options;
  const table = checkTableName(options.tableName);
  const keyPrefix = checkKeyPrefix(options.keyPrefix);
  const { burst, perMs } = checked(options);
  const statement = `INSERT INTO ${table} AS t (key, tokens, at, allowed)
SELECT $1, $2::float8 - 1, n.at, true FROM (SELECT ${DB_NOW_MS} AS at) n
ON CONFLICT (key) DO UPDATE SET (tokens, at, allowed) = (
  SELECT CASE WHEN f.tokens >= 1 THEN f.tokens - 1 ELSE f.tokens END, n.at, f.tokens >= 1
  FROM (SELECT ${DB_NOW_MS} AS at) n
  CROSS JOIN LATERAL (
    SELECT least($2::float8, t.tokens + greatest(0, n.at - t.at) * $3::float8) AS tokens
  ) f
)
RETURNING allowed, tokens`;
  return {
    points: burst,
    async hit(key): Promise<Decision> {
      const rows = await db.query<{ allowed: boolean; tokens: string | number }>(statement, [
        `${keyPrefix}:${storageKey(key)}`,
        burst,
        perMs,
      ]);
      const row = rows[0];
      if (!row) throw new Error(`the token-bucket statement on ${table} returned no row`);
      return row.allowed ? ALLOWED : refusedFor(Number(row.tokens), perMs);
    },
    flush: async () => {},
    close: async () => {},
  };
}
