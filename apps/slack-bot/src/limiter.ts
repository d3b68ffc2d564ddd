import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Database } from './store/database.ts';

/** Counts what one Slack user does in a window, in the store every instance shares. */
export interface Limiter {
  /**
   * Takes one from a user's allowance.
   *
   * @param slackUserId The Slack user.
   * @returns Whether it is allowed, and if not, in how many seconds it will be.
   */
  take(slackUserId: string): Promise<{ allowed: true } | { allowed: false; retryInSeconds: number }>;
}

/**
 * Creates a limiter of `limit` per `windowSeconds` for each user, kept in the bot's store (so a
 * restart does not reset it and a second instance shares it).
 *
 * @param db The store.
 * @param name What is counted (a key prefix: reveals and commands count apart).
 * @param limit How many are allowed per window.
 * @param windowSeconds The window.
 * @returns The limiter.
 */
export function createLimiter(db: Database, name: string, limit: number, windowSeconds: number): Limiter {
  const limiter = new RateLimiterPostgres({
    // rate-limiter-flexible calls query({ text, values }) on a pg pool; PGlite takes (text, values).
    storeClient: {
      query: (statement: { text: string; values?: unknown[] }) => db.query(statement.text, statement.values),
    },
    storeType: 'pool',
    tableName: 'rate_limits',
    tableCreated: true,
    keyPrefix: name,
    points: limit,
    duration: windowSeconds,
  });
  return {
    async take(slackUserId) {
      try {
        await limiter.consume(slackUserId, 1);
        return { allowed: true };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes)
          return { allowed: false, retryInSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
        throw rejection;
      }
    },
  };
}
