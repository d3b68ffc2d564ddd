/**
 * Finding references in any text (env files, config, source), with their ranges, for editors and
 * for `vaultline run`/`inject`. Host-free.
 *
 * @see ../../../../docs/references.md
 * @module
 */

import { parseReference, REFERENCE_SCHEME, type Reference } from './reference.ts';
import { VaultReferenceError } from './reference-error.ts';

/** A reference found in text. */
export interface FoundReference {
  /** Where it starts (UTF-16 offset, inclusive). */
  readonly start: number;
  /** Where it ends (UTF-16 offset, exclusive). */
  readonly end: number;
  /** The text of the reference as written. */
  readonly text: string;
  /** The parsed reference; `undefined` when it does not follow the grammar (see `error`). */
  readonly reference: Reference | undefined;
  /** Why it does not parse; `undefined` when it does. */
  readonly error: VaultReferenceError | undefined;
}

/**
 * A reference ends at the first character that is not unreserved, `%`, `/`, `:` or `@`, or a
 * letter, digit or mark outside ASCII (hand-written names); so quotes, spaces, `,`, `;`, `)`, `]`,
 * `>`, `#` end it. The scheme must not follow another scheme character (`xvaultline://`).
 */
const REFERENCE_PATTERN = /(?<![A-Za-z0-9+.-])vaultline:\/\/(?:[A-Za-z0-9\-._~%/:@]|[\p{L}\p{M}\p{N}])+/gu;

const SCHEME_LENGTH = REFERENCE_SCHEME.length;

/** How many shorter readings of one match are tried before it is reported as invalid. */
const MAX_CUTS = 16;

/**
 * Finds every reference in a text, with its range. References that do not parse are reported too,
 * with their error, so an editor can mark them. When a match does not parse, it is read as ending
 * before its last `@`, `:` or `.` that leaves a valid reference (a sentence's full stop, or a
 * reference inside a URL: `postgres://app:vaultline://42/password@db:5432/app`).
 *
 * @param text The text.
 * @returns The references found, in order.
 * @example
 * ```ts
 * findReferences('DB_PASS=vaultline://42/password\n');
 * // [{ start: 8, end: 31, text: 'vaultline://42/password', reference: { kind: 'id', id: 42, field: 'password' }, error: undefined }]
 * ```
 */
export function findReferences(text: string): FoundReference[] {
  const found: FoundReference[] = [];
  const pattern = new RegExp(REFERENCE_PATTERN.source, REFERENCE_PATTERN.flags);
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const start = match.index;
    let candidate = match[0];
    let result = tryParse(candidate);
    if (result.error) {
      let tries = 0;
      for (let cut = candidate.length - 1; cut > SCHEME_LENGTH && tries < MAX_CUTS; cut--) {
        const char = candidate[cut];
        if (char !== '@' && char !== ':' && char !== '.') continue;
        tries++;
        const retry = tryParse(candidate.slice(0, cut));
        if (!retry.error) {
          candidate = candidate.slice(0, cut);
          result = retry;
          break;
        }
      }
    }
    found.push({ start, end: start + candidate.length, text: candidate, ...result });
    // What a cut left over may hold the next reference (`vaultline://1/login:vaultline://1/password`).
    pattern.lastIndex = start + candidate.length;
  }
  return found;
}

function tryParse(text: string): {
  reference: Reference | undefined;
  error: VaultReferenceError | undefined;
} {
  try {
    return { reference: parseReference(text), error: undefined };
  } catch (error) {
    if (error instanceof VaultReferenceError) return { reference: undefined, error };
    throw error;
  }
}
