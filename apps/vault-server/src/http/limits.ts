/**
 * The request rate limit and the failed-key lockout, counted with `rate-limiter-flexible`: in
 * PostgreSQL when the store is PostgreSQL (every instance behind a load balancer shares the
 * counters), in memory on PGlite (one process owns the data directory).
 *
 * @module
 */

import type { MiddlewareHandler } from 'hono';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { FAILED_KEY_WINDOW_MS, RATE_LIMIT_TABLE } from '../constants.ts';
import type { Database } from '../db/database.ts';
import { VaultServerError } from '../errors.ts';
import type { AppEnv } from './app-env.ts';

/** One counter: how many events a key (a client address) may have in a window. */
export interface Limiter {
  /** The most events per window. */
  readonly points: number;
  /**
   * Counts one event.
   *
   * @param key The client address.
   * @returns Whether the event is within the limit, and seconds until the window ends.
   */
  hit(key: string): Promise<{ allowed: boolean; retryAfterSeconds: number }>;
}

/** The counters the app uses. */
export interface Limiters {
  /** Requests per address per minute. */
  readonly requests: Limiter;
  /** Failed API keys per address per {@link FAILED_KEY_WINDOW_MS}. */
  readonly failedKeys: Limiter;
}

/** What {@link createLimiters} needs. */
export interface LimitOptions {
  readonly rateLimitPerMinute: number;
  readonly failedKeyLimit: number;
}

/**
 * `pg.Pool`'s `query({ text, values })` over the store's own connection pool, for the Postgres
 * store of `rate-limiter-flexible`: one pool, one set of prepared statements.
 */
function poolOver(db: Database): { query(q: { text: string; values?: unknown[] }): Promise<unknown> } {
  return {
    async query(q) {
      const rows = await db.query(q.text, q.values ?? []);
      return { rows, rowCount: rows.length };
    },
  };
}

function limiterOf(flexible: RateLimiterAbstract, points: number): Limiter {
  return {
    points,
    async hit(key) {
      let result: RateLimiterRes;
      let allowed = true;
      try {
        result = await flexible.consume(key);
      } catch (rejected) {
        // Over the limit rejects with the counter; a store failure (no insurance) with an Error.
        if (!(rejected instanceof RateLimiterRes)) throw rejected;
        result = rejected;
        allowed = false;
      }
      return { allowed, retryAfterSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)) };
    },
  };
}

async function postgresLimiter(db: Database, keyPrefix: string, points: number, duration: number) {
  // If PostgreSQL cannot be reached for a moment, counting goes on in this process.
  const insuranceLimiter = new RateLimiterMemory({ keyPrefix, points, duration });
  return new Promise<RateLimiterAbstract>((resolve, reject) => {
    const limiter: RateLimiterAbstract = new RateLimiterPostgres(
      {
        storeClient: poolOver(db),
        storeType: 'pool',
        tableName: RATE_LIMIT_TABLE,
        keyPrefix,
        points,
        duration,
        insuranceLimiter,
      },
      (error) => (error ? reject(error) : resolve(limiter)),
    );
  });
}

/**
 * Creates the counters: in PostgreSQL (the table is created if absent) or in memory.
 *
 * @param db The store's database.
 * @param options The limits.
 * @returns The counters.
 */
export async function createLimiters(db: Database, options: LimitOptions): Promise<Limiters> {
  const failedKeySeconds = FAILED_KEY_WINDOW_MS / 1000;
  if (db.kind === 'postgres') {
    const [requests, failedKeys] = await Promise.all([
      postgresLimiter(db, 'req', options.rateLimitPerMinute, 60),
      postgresLimiter(db, 'badkey', options.failedKeyLimit, failedKeySeconds),
    ]);
    return {
      requests: limiterOf(requests, options.rateLimitPerMinute),
      failedKeys: limiterOf(failedKeys, options.failedKeyLimit),
    };
  }
  return {
    requests: limiterOf(
      new RateLimiterMemory({ keyPrefix: 'req', points: options.rateLimitPerMinute, duration: 60 }),
      options.rateLimitPerMinute,
    ),
    failedKeys: limiterOf(
      new RateLimiterMemory({
        keyPrefix: 'badkey',
        points: options.failedKeyLimit,
        duration: failedKeySeconds,
      }),
      options.failedKeyLimit,
    ),
  };
}

/**
 * Refuses a client address over its request budget with 429 and `Retry-After`.
 *
 * @param requests The request counter.
 * @returns The middleware.
 */
export function requestLimit(requests: Limiter): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { allowed, retryAfterSeconds } = await requests.hit(c.get('address'));
    if (!allowed) {
      c.header('retry-after', String(retryAfterSeconds));
      throw new VaultServerError('rate_limited', 'Too many requests from this address; slow down.');
    }
    await next();
  };
}
