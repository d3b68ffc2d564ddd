import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** Counts reveals per Slack user. */
export interface RevealLimiter {
  /**
   * Takes one reveal from a user's allowance.
   *
   * @param slackUserId The Slack user.
   * @returns Whether it is allowed, and if not, in how many seconds it will be.
   */
  take(slackUserId: string): Promise<{ allowed: true } | { allowed: false; retryInSeconds: number }>;
}

/**
 * Creates a limiter of `limit` reveals per `windowSeconds` for each user.
 *
 * @param limit Reveals allowed per window.
 * @param windowSeconds The window.
 * @returns The limiter.
 */
export function createRevealLimiter(limit: number, windowSeconds: number): RevealLimiter {
  const limiter = new RateLimiterMemory({ points: limit, duration: windowSeconds });
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
