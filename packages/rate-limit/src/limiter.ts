import type { RateLimiterAbstract } from 'rate-limiter-flexible';

/** The answer to one hit. */
export interface Decision {
  /** Whether the hit is within the limit. */
  allowed: boolean;
  /** When refused, in how many seconds (at least 1) the key has a place again; 0 when allowed. */
  retryAfterSeconds: number;
}

/** Counts hits per key (in a fixed window, or a token bucket) and says whether each one is allowed. */
export interface Limiter {
  /** Hits allowed per key and window (a token bucket's burst). */
  readonly points: number;
  /**
   * Counts one hit of a key (refused hits are not counted by the write-behind, memory and
   * token-bucket limiters; the exact limiter counts every hit, as rate-limiter-flexible's `consume` does).
   *
   * @param key What is counted: any string, hostile or not (long and unusual keys are hashed).
   * @returns Whether it is allowed.
   */
  hit(key: string): Promise<Decision>;
  /** Writes the counts not yet in the shared store (a no-op for limiters with nothing pending). */
  flush(): Promise<void>;
  /** Stops the timer and writes what is pending. Call it on shutdown. */
  close(): Promise<void>;
}

/**
 * What a write-behind limiter needs of the shared counter: rate-limiter-flexible's `get` and
 * `penalty` (any of its limiters fits, e.g. {@link postgresCounter}'s).
 */
export type SharedCounter = Pick<RateLimiterAbstract, 'get' | 'penalty' | 'points' | 'duration'>;

/** What an exact limiter needs of its counter. */
export type ExactCounter = Pick<RateLimiterAbstract, 'consume' | 'points'>;

export const ALLOWED: Decision = Object.freeze({ allowed: true, retryAfterSeconds: 0 });

/**
 * A refusal.
 *
 * @param msBeforeNext When the window ends.
 * @returns The decision.
 */
export function refused(msBeforeNext: number): Decision {
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(msBeforeNext / 1000)) };
}

/**
 * Checks a count option.
 *
 * @param name The option, for the message.
 * @param value Its value.
 * @returns The value.
 */
export function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  return value;
}
