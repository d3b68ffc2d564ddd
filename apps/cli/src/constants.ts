/**
 * The names a user or a script sees: exit codes, environment variables, files. One place, so the
 * README's tables and the code cannot drift (test/docs.test.ts compares them).
 *
 * @module
 */

/** Exit codes of `vaultline`. `run` exits with the child's own code instead, once the child started. */
export const EXIT = {
  /** It worked. */
  ok: 0,
  /** An unexpected error. */
  error: 1,
  /** Wrong usage: an unknown command or option, a missing argument. */
  usage: 2,
  /** A reference is invalid, not found, ambiguous, forbidden or names an unknown field. */
  reference: 3,
  /** No connection, no API key, a wrong key, or no keychain to store it in. */
  auth: 4,
  /** The vault could not be reached or failed (network, timeout, 5xx, unreadable answer). */
  vault: 5,
  /** `inject` refused to overwrite an existing file (use --force). */
  exists: 6,
  /** `run`: the command cannot be executed (permission). */
  cannotExecute: 126,
  /** `run`: the command was not found. */
  notFound: 127,
  /** `run`: the child was killed by a signal; the code is 128 + the signal's number. */
  signalBase: 128,
} as const;

/** Environment variables `vaultline` reads. */
export const ENV = {
  /** The vault's base URL; overrides the stored default connection. */
  url: 'VAULTLINE_URL',
  /** The API key; overrides the keychain. Never passed on to `run`'s child. */
  apiKey: 'VAULTLINE_API_KEY',
  /** The vault login to act for; overrides the stored default connection. */
  login: 'VAULTLINE_LOGIN',
} as const;

/** The service name of keychain entries. */
export const KEYCHAIN_SERVICE = 'vaultline';

/** The name of the connection used when none is named. */
export const DEFAULT_CONNECTION = 'default';

/** What masked values are replaced with in `run`'s output. */
export const MASK = '<concealed by vaultline>';

/** Values shorter than this are not masked (masking every `1` would garble output). */
export const MIN_MASK_LENGTH = 3;
