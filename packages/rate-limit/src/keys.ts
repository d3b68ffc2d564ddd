import { createHash } from 'node:crypto';

/** The longest key stored as it is; longer keys are stored as their hash. */
export const MAX_PLAIN_KEY_LENGTH = 128;

/** Hashed keys start with this; plain keys never do, so the two never meet. */
const HASHED = '#';

// Control characters (NUL cannot be stored in PostgreSQL text at all).
const CONTROL = /\p{Cc}/u;

/**
 * The key a limiter counts under, for any string a caller hands it: the key itself when it is
 * short, well-formed and plain, otherwise `#` and the SHA-256 of its UTF-16 code units (base64url).
 * Every input has one stored key, distinct inputs get distinct ones (up to SHA-256), and the stored
 * key always fits rate-limiter-flexible's `varchar(255)` column with a prefix of up to 64 characters.
 *
 * @param key What is counted (a user id, a client address…), possibly hostile.
 * @returns The stored key.
 */
export function storageKey(key: string): string {
  if (typeof key !== 'string') throw new TypeError('a rate-limit key must be a string');
  if (
    key.length > 0 &&
    key.length <= MAX_PLAIN_KEY_LENGTH &&
    !key.startsWith(HASHED) &&
    key.isWellFormed() &&
    !CONTROL.test(key)
  )
    return key;
  return `${HASHED}${createHash('sha256').update(key, 'utf16le').digest('base64url')}`;
}
