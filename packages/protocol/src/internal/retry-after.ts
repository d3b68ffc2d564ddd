/**
 * Reading `Retry-After`, shared by both dialects' callers. Internal: exported by no entry.
 *
 * @module
 */

import type { VaultError } from '../errors.ts';

/**
 * Reads a `Retry-After` header: seconds, or an HTTP date.
 *
 * @param value The header's value.
 * @param now The clock, in ms since the epoch.
 * @returns The wait in ms (never negative), or `undefined` when absent or unreadable.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/**
 * The same error with the wait a 429 asked for, when it is a `rate_limited` error that does not
 * carry one yet.
 *
 * @param error The error.
 * @param retryAfterMs The wait, in ms.
 * @returns The error to throw.
 */
export function withRetryAfter(error: VaultError, retryAfterMs: number | undefined): VaultError {
  if (retryAfterMs === undefined || error.code !== 'rate_limited' || error.retryAfterMs !== undefined)
    return error;
  return error.with({ retryAfterMs });
}
