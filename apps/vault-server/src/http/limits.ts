/**
 * The request rate limit and the failed-key lockout, over `@vaultline/rate-limit`:
 *
 * - on PGlite (one process owns the data directory) both count in memory;
 * - on PostgreSQL both are shared by every instance behind a load balancer, in the table
 *   {@link RATE_LIMIT_TABLE}. The request limit is decided in memory and written behind in
 *   batches (one statement per address per {@link REQUEST_LIMIT_FLUSH_MS}, not one per request), so
 *   across instances it is approximate by the requests other instances allowed within one batch;
 *   the failed-key lockout is exact (one statement per failed key: only failures pay).
 *
 * @module
 */

import {
  exactLimiter,
  type Limiter,
  memoryLimiter,
  postgresCounter,
  writeBehindLimiter,
} from '@vaultline/rate-limit';
import type { Database } from '@vaultline/store';
import { FAILED_KEY_WINDOW_MS, RATE_LIMIT_TABLE } from '../constants.ts';
import { RateLimitedError } from '../errors.ts';

/** How long a request counted on one instance waits before the others can see it. */
export const REQUEST_LIMIT_FLUSH_MS = 100;

/** The counters the app uses. */
export interface Limiters {
  /** Requests per address per minute. */
  readonly requests: Limiter;
  /** Failed API keys per address per {@link FAILED_KEY_WINDOW_MS}. */
  readonly failedKeys: Limiter;
  /** Writes the counts still pending (on shutdown). */
  close(): Promise<void>;
}

/** What {@link createLimiters} needs. */
export interface LimitOptions {
  readonly rateLimitPerMinute: number;
  readonly failedKeyLimit: number;
  /** Told when the shared counters cannot be read or written (requests are decided anyway). */
  readonly onError?: (error: unknown) => void;
}

/**
 * Creates the counters: in PostgreSQL (in the table the schema's migrations create; nothing is
 * created here, so instances starting together cannot race) or in memory.
 *
 * @param db The store's database.
 * @param options The limits.
 * @returns The counters.
 */
export function createLimiters(db: Database, options: LimitOptions): Limiters {
  // Each limit once: its points and window, whichever store counts it.
  const requestLimit = { points: options.rateLimitPerMinute, durationSeconds: 60 };
  const failedKeyLimit = { points: options.failedKeyLimit, durationSeconds: FAILED_KEY_WINDOW_MS / 1000 };
  const both = (requests: Limiter, failedKeys: Limiter): Limiters => ({
    requests,
    failedKeys,
    close: async () => {
      await Promise.all([requests.close(), failedKeys.close()]);
    },
  });
  if (db.kind === 'postgres') {
    // The store's own pool and prepared statements; the table comes from schema migration 6.
    const requests = postgresCounter({ db, tableName: RATE_LIMIT_TABLE, keyPrefix: 'req', ...requestLimit });
    const failedKeys = postgresCounter({
      db,
      tableName: RATE_LIMIT_TABLE,
      keyPrefix: 'badkey',
      ...failedKeyLimit,
    });
    return both(
      writeBehindLimiter({
        shared: requests,
        flushIntervalMs: REQUEST_LIMIT_FLUSH_MS,
        onError: options.onError,
      }),
      exactLimiter(failedKeys),
    );
  }
  return both(memoryLimiter(requestLimit), memoryLimiter(failedKeyLimit));
}

/**
 * Counts one request of a client address against its budget.
 *
 * @param requests The request counter.
 * @param address The client's address.
 * @throws {RateLimitedError} 429 with `Retry-After` once the address is over its budget.
 */
export async function checkRequestLimit(requests: Limiter, address: string): Promise<void> {
  const { allowed, retryAfterSeconds } = await requests.hit(address);
  if (!allowed)
    throw new RateLimitedError('Too many requests from this address; slow down.', retryAfterSeconds);
}
