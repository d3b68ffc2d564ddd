/**
 * Reading `Retry-After`, for the transport. Internal: exported by no entry.
 *
 * @module
 */

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
