import {
  isVaultError,
  toVaultError,
  type VaultErrorCode,
  type VaultErrorReason,
  withServerWords,
} from '@vaultline/protocol';
import * as vscode from 'vscode';

/** A button on an error: the command that fixes what failed ("Connect", "Retry"). */
export interface FixAction {
  title: string;
  command: string;
  args?: unknown[];
}

/** What to tell the user for each error code: one plain sentence, never a stack trace. */
const MESSAGES: Readonly<Record<VaultErrorCode, (where: string) => string>> = {
  unauthorized: (where) =>
    vscode.l10n.t(
      '{0}: the vault rejected the API key. Run "Vaultline: Connect" again with a valid key.',
      where,
    ),
  forbidden: (where) => vscode.l10n.t('{0}: you have no right to do this in the vault.', where),
  not_found: (where) => vscode.l10n.t('{0}: not found in the vault (it may have been deleted).', where),
  duplicate_label: (where) =>
    vscode.l10n.t('{0}: an item with a similar label already exists. Choose another label.', where),
  invalid_request: (where) => vscode.l10n.t('{0}: the vault refused the request.', where),
  api_disabled: (where) =>
    vscode.l10n.t("{0}: the vault's API is switched off. Ask your vault administrator.", where),
  too_large: (where) => vscode.l10n.t('{0}: the request or answer is too large.', where),
  rate_limited: (where) => vscode.l10n.t('{0}: too many requests. Wait a moment and retry.', where),
  invalid_response: (where) =>
    vscode.l10n.t('{0}: the vault sent an answer Vaultline does not understand.', where),
  network: (where) =>
    vscode.l10n.t('{0}: cannot reach the vault. Is the server running and the URL right?', where),
  timeout: (where) => vscode.l10n.t('{0}: the vault did not answer in time.', where),
  aborted: (where) => vscode.l10n.t('{0}: cancelled.', where),
  server: (where) => vscode.l10n.t('{0}: the vault failed with a server error.', where),
};

/** What to tell the user for a reason the vault gave, where it changes what to do: instead of the code's. */
const REASON_MESSAGES: Readonly<Record<VaultErrorReason, (where: string) => string>> = {
  key_revoked: (where) =>
    vscode.l10n.t(
      '{0}: this API key was revoked. Ask your vault administrator for a new key, then run "Vaultline: Connect" again.',
      where,
    ),
};

/**
 * Turns anything thrown into one line for the user: the plain sentence for its code (or for its
 * reason, such as a revoked key), then the server's own words (`The vault said: "…"`, first line,
 * redacted) when the server sent any.
 *
 * @param error The thrown value.
 * @param where The connection name or the action, put first.
 * @param redact Removes the connection's key from server text.
 * @returns The message.
 */
export function userMessage(
  error: unknown,
  where: string,
  redact: (text: string) => string = (t) => t,
): string {
  if (error instanceof UserFacingError) return error.complete ? error.message : `${where}: ${error.message}`;
  const vaultError = isVaultError(error) ? error : toVaultError(error, redact);
  // Refused before anything was sent (bad URL, value too long): the core's own one-line message says
  // exactly what was expected and received.
  if (
    vaultError.status === undefined &&
    (vaultError.code === 'invalid_request' || vaultError.code === 'too_large')
  ) {
    return `${where}: ${redact(vaultError.message).split('\n')[0]?.slice(0, 300)}`;
  }
  // The server's own words say which value, which rule, which user: the core puts them next to
  // the sentence (first line, short, redacted).
  const sentence =
    vaultError.reason === undefined
      ? MESSAGES[vaultError.code](where)
      : REASON_MESSAGES[vaultError.reason](where);
  return withServerWords(sentence, vaultError, redact);
}

/** Whether an error means the key is wrong: fixed by connecting again, not by retrying. */
export function isKeyProblem(error: unknown): boolean {
  return isVaultError(error) && error.code === 'unauthorized';
}

/** An error the extension raises itself for the user to read, e.g. a missing right. */
export class UserFacingError extends Error {
  override name = 'UserFacingError';
  /** The message already names where it happened: shown as is, not prefixed with the action. */
  readonly complete: boolean;
  /** Buttons on the notification, each running the command that fixes the problem. */
  readonly actions: readonly FixAction[];
  /** Fixed by connecting (again): no connection, or no key stored for it. */
  readonly needsConnect: boolean;

  constructor(
    message: string,
    options: { complete?: boolean; actions?: readonly FixAction[]; needsConnect?: boolean } = {},
  ) {
    super(message);
    this.complete = options.complete ?? false;
    this.actions = options.actions ?? [];
    this.needsConnect = options.needsConnect ?? false;
  }
}
