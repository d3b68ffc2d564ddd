/**
 * A tool's failure: a code and a message written by the tool, which never hold a value.
 *
 * @module
 */

import { isVaultError, type VaultError } from '@vaultline/protocol';
import type { Connection } from '../connection.ts';
import { CliError } from '../errors.ts';
import { boundedMessage } from './untrusted.ts';

/** Why a tool did not do what it was asked. */
export type ToolFailureCode =
  | 'bad_input'
  | 'not_found'
  | 'forbidden'
  | 'too_weak'
  | 'exists'
  | 'changed'
  | 'write_failed'
  | 'vault_unavailable'
  | 'unauthorized'
  | 'not_connected'
  | 'failed';

/** A failure the tool reports as its answer (`isError`), in its own words. */
export class ToolFailure extends Error {
  override name = 'ToolFailure';
  /** What went wrong, for the assistant to act on. */
  readonly code: ToolFailureCode;

  /**
   * @param code What went wrong.
   * @param message One line, naming files, folders and items by id, never a value.
   */
  constructor(code: ToolFailureCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** The CLI's codes for a connection that cannot be opened (none, or its secrets missing). */
const NOT_CONNECTED = new Set([
  'no_connection',
  'no_key',
  'no_credentials',
  'no_login',
  'invalid_connection',
]);

/**
 * Turns any failure into the tool's own words: vault errors by their code (never the server's
 * text, which could echo a request), the CLI's messages as they are (they hold no values).
 *
 * @param error The failure.
 * @param connection The connection, for its name.
 * @returns The failure to answer with.
 */
export function toToolFailure(error: unknown, connection: Connection | undefined): ToolFailure {
  if (error instanceof ToolFailure) return error;
  if (isVaultError(error)) return vaultFailure(error, connection);
  if (error instanceof CliError)
    return new ToolFailure(
      NOT_CONNECTED.has(error.code) ? 'not_connected' : 'unauthorized',
      boundedMessage(error.message),
    );
  return new ToolFailure(
    'failed',
    `The tool failed unexpectedly (${error instanceof Error ? error.name : typeof error}).`,
  );
}

function vaultFailure(error: VaultError, connection: Connection | undefined): ToolFailure {
  const where = connection
    ? `the vault of connection ${JSON.stringify(connection.name)} (${connection.url})`
    : 'the vault';
  switch (error.code) {
    case 'network':
    case 'timeout':
    case 'server':
    case 'invalid_response':
    case 'rate_limited':
    case 'aborted':
      return new ToolFailure(
        'vault_unavailable',
        `Cannot use ${where}: ${error.code.replace('_', ' ')}. Try again later; the person may check that the vault runs.`,
      );
    case 'unauthorized':
    case 'api_disabled':
      if (connection?.expiresAt !== undefined)
        return new ToolFailure(
          'unauthorized',
          `${where} refused the key exchanged for the OIDC token, a new one too: an administrator checks the trust policy and the user or account it binds (vaultline-server trust list).`,
        );
      return new ToolFailure(
        'unauthorized',
        `${where} refused the credentials: the person runs vaultline connect again (never paste credentials into the chat).`,
      );
    case 'forbidden':
      return new ToolFailure('forbidden', `${where} refused: this user has no right to do that.`);
    case 'not_found':
      return new ToolFailure(
        'not_found',
        `${where} has no such item or folder (or this user may not see it).`,
      );
    case 'duplicate_label':
      return new ToolFailure('exists', 'An item with a similar label exists already: choose another label.');
    case 'too_large':
      return new ToolFailure(
        'bad_input',
        `${where} refused it as too large (a vault may limit the length of a password).`,
      );
    case 'invalid_request':
      return new ToolFailure('bad_input', `${where} refused the request as invalid (${error.code}).`);
    default:
      return new ToolFailure('failed', `${where} failed (${error.code}).`);
  }
}
