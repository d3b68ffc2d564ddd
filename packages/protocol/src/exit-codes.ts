/**
 * The exit codes of every Vaultline command: `vaultline`, `vaultline-server` and
 * `vaultline-conformance`. One table, so that a script reads the same code the same way whichever
 * command it runs.
 *
 * @module
 */

/**
 * Exit codes of the Vaultline commands. Every command uses `ok`, `error` and `usage`; the others
 * belong to `vaultline`, whose `run` exits with the child's own code once the child started.
 */
export const EXIT = {
  /** It worked. */
  ok: 0,
  /** An unexpected error, or (`vaultline-conformance`) a failed check. */
  error: 1,
  /** Wrong usage: an unknown command or option, a missing argument. */
  usage: 2,
  /** A reference is invalid, not found, ambiguous, forbidden or names an unknown field. */
  reference: 3,
  /** No connection, no API key, a wrong or revoked key, or no keychain to store it in. */
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

/** One of the {@link EXIT} codes. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
