/**
 * Finding references in any text (env files, config, source), with their ranges, for editors and
 * for `vaultline run`/`inject`. Host-free.
 *
 * @see ../../../../docs/references.md
 * @module
 */

import { parseReference, type Reference } from './reference.ts';
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

/**
 * Finds every reference in a text, with its range. References that do not parse are reported too,
 * with their error, so an editor can mark them. A `.` or `:` that ends a sentence is not taken as
 * part of a reference that parses without it.
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
  for (const match of text.matchAll(REFERENCE_PATTERN)) {
    const start = match.index;
    let candidate = match[0];
    let result = tryParse(candidate);
    if (result.error) {
      const trimmed = candidate.replace(/[.:]+$/, '');
      if (trimmed !== candidate) {
        const retry = tryParse(trimmed);
        if (!retry.error) {
          candidate = trimmed;
          result = retry;
        }
      }
    }
    found.push({ start, end: start + candidate.length, text: candidate, ...result });
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
