/**
 * How TeamPass 3 counts API calls for its rate limit, so that a server calling it for many
 * machines can stay under it. TeamPass 3.2.1.5 (`teampassApiRateLimitCheck`) counts every call,
 * refused ones too, per user and per client address, in clock-minute buckets, and estimates the
 * last minute as the previous bucket weighted by what is left of the current one plus the current
 * one; over the limit (120 by default) it answers 429 with `Retry-After`.
 *
 * @module
 */

/** TeamPass 3's default API limit: calls per user and per address in its estimated minute. */
export const TEAMPASS3_CALLS_PER_MINUTE = 120;

/**
 * TeamPass's estimate of the last minute's calls.
 *
 * @param previous The calls of the previous clock minute.
 * @param current The calls of the current one, this call included.
 * @param elapsedMs How far into the current minute this call is.
 * @returns What TeamPass compares with its limit.
 */
export function teamPass3MinuteEstimate(previous: number, current: number, elapsedMs: number): number {
  return previous * ((60_000 - elapsedMs) / 60_000) + current;
}

/**
 * A pace that TeamPass's estimate never counts above `perMinute`, as a token bucket: half of it
 * at once, the other half regained a minute. Such a bucket allows at most `burst + perMinute`
 * calls in any two consecutive clock minutes' estimate, however TeamPass's minutes fall against
 * the caller's clock; a sliding minute of `perMinute` would let the estimate reach nearly twice
 * that (two bursts a little more than a minute apart).
 *
 * @param perMinute The most TeamPass may count in a minute (at least 2).
 * @returns The bucket's size and the tokens it regains a minute.
 */
export function paceBelowTeamPass3(perMinute: number): { burst: number; perMinute: number } {
  const burst = Math.max(1, Math.ceil(perMinute / 2));
  return { burst, perMinute: Math.max(1, perMinute - burst) };
}
