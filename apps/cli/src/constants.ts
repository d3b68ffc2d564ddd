/**
 * The names a user or a script sees: environment variables, files. One place, so the README's
 * tables and the code cannot drift (test/docs.test.ts compares them). The exit codes are the
 * protocol core's `EXIT`, one table for every Vaultline command.
 *
 * @module
 */

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
