/**
 * The error codes of TeamPass 3's failures: from its words where they say more than the status.
 *
 * @module
 */

import type { VaultErrorCode } from '../../errors.ts';

/** What TeamPass 3's words mean, checked before the status. */
const WORDS: ReadonlyArray<readonly [RegExp, VaultErrorCode]> = [
  [/API usage is not allowed|OAuth2 API access is disabled/i, 'api_disabled'],
  [/already exists|Duplicates are not allowed/i, 'duplicate_label'],
  [/Rate limit exceeded/i, 'rate_limited'],
  [/too long/i, 'too_large'],
];

/** The error code of an HTTP status alone. */
export function codeOfStatus(status: number): VaultErrorCode {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 413 || status === 414) return 'too_large';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server';
  return 'invalid_request';
}

/**
 * The error code of a TeamPass 3 problem answer: from its words where they say more than the
 * status (`API usage is not allowed` → `api_disabled`, `Similar item already exists` →
 * `duplicate_label`), from the status otherwise (400, 405, 409, 422 → `invalid_request`, 401 →
 * `unauthorized`, 403 → `forbidden`, 404 → `not_found`, 429 → `rate_limited`, 5xx → `server`).
 *
 * @param status The HTTP status.
 * @param detail The problem's `detail`.
 * @returns The code.
 */
export function classifyTeamPass3Error(status: number, detail: string): VaultErrorCode {
  for (const [pattern, code] of WORDS) if (pattern.test(detail)) return code;
  return codeOfStatus(status);
}
