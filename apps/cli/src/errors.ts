/**
 * The CLI's error: a message for people and an exit code for scripts. Vault and reference errors
 * are mapped to exit codes in one table.
 *
 * @module
 */

import {
  EXIT,
  isReferenceError,
  isVaultError,
  type VaultErrorCode,
  type VaultErrorReason,
} from '@vaultline/protocol';

/** An error the CLI reports as one line and an exit code. */
export class CliError extends Error {
  override name = 'CliError';
  /** The process's exit code. */
  readonly exitCode: number;
  /** A code for `--json` output. */
  readonly code: string;

  /**
   * Creates an error.
   *
   * @param code A code for scripts.
   * @param message One line for people.
   * @param exitCode The exit code.
   */
  constructor(code: string, message: string, exitCode: number, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.exitCode = exitCode;
  }
}

/** Vault error codes → exit codes. */
const VAULT_EXIT: Readonly<Record<VaultErrorCode, number>> = {
  unauthorized: EXIT.auth,
  forbidden: EXIT.auth,
  api_disabled: EXIT.auth,
  not_found: EXIT.reference,
  duplicate_label: EXIT.error,
  invalid_request: EXIT.error,
  too_large: EXIT.error,
  rate_limited: EXIT.vault,
  invalid_response: EXIT.vault,
  network: EXIT.vault,
  timeout: EXIT.vault,
  aborted: EXIT.vault,
  server: EXIT.vault,
  unsupported: EXIT.error,
};

/** Extra words for the vault errors people meet most. */
const VAULT_HINT: Partial<Record<VaultErrorCode, string>> = {
  unauthorized: 'The vault refused the API key: check VAULTLINE_API_KEY or run vaultline connect again.',
  network: 'Is the vault running, and is the URL right?',
  timeout: 'Is the vault running, and is the URL right?',
};

/** Words for a reason the vault gave, where it changes what to do: they replace the code's. */
const REASON_HINT: Readonly<Partial<Record<VaultErrorReason, string>>> = {
  key_revoked:
    'The API key was revoked: ask a vault administrator for a new one, then set VAULTLINE_API_KEY or run vaultline connect again.',
  sign_in_locked:
    'The vault locked the account (or this address) for a while after too many failed sign-ins: try again later, or ask a vault administrator to unlock it. Each try while it is locked counts as another failed sign-in.',
  https_required:
    'The vault accepts API requests over HTTPS only: use its https:// address (run vaultline connect https://… again, or set VAULTLINE_URL).',
  upstream:
    'The Vaultline server is up, but the TeamPass behind it (its upstream) did not answer or refused the server: your key is fine. Try again later, or tell the server operator.',
};

/**
 * Turns anything thrown into a {@link CliError}.
 *
 * @param error The thrown value.
 * @returns The CLI error.
 */
export function toCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (isReferenceError(error))
    return new CliError(error.code, error.message, EXIT.reference, { cause: error });
  if (
    isVaultError(error, 'not_found') &&
    (error.endpoint === 'readUserFolders' || error.endpoint === 'readUserItems')
  ) {
    // The login the command acts for does not exist: a connection problem, not a reference's.
    return new CliError(
      'unknown_login',
      `${error.message} Check VAULTLINE_LOGIN or the connection's login.`,
      EXIT.auth,
      {
        cause: error,
      },
    );
  }
  if (isVaultError(error)) {
    const hint =
      (error.reason === undefined ? undefined : REASON_HINT[error.reason]) ?? VAULT_HINT[error.code];
    return new CliError(
      error.code,
      hint ? `${error.message} ${hint}` : error.message,
      VAULT_EXIT[error.code],
      {
        cause: error,
      },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new CliError('error', message, EXIT.error, { cause: error });
}
