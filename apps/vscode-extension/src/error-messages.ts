import {
  isVaultError,
  toVaultError,
  type VaultError,
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
      '{0}: the vault rejected the API key. Run "Vaultline: Connect to a Vault" again with a valid key.',
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
  unsupported: (where) => vscode.l10n.t("{0}: this vault's server cannot do that.", where),
};

/**
 * What to tell the user for a reason the vault gave, where it changes what to do: instead of the
 * code's. Why a browser got no answer (`cors`, `mixed-content`) is told by {@link networkMessage}.
 */
const REASON_MESSAGES: Readonly<Partial<Record<VaultErrorReason, (where: string) => string>>> = {
  key_revoked: (where) =>
    vscode.l10n.t(
      '{0}: this API key was revoked. Ask your vault administrator for a new key, then run "Vaultline: Connect to a Vault" again.',
      where,
    ),
  sign_in_locked: (where) =>
    vscode.l10n.t(
      '{0}: the vault locked signing in for a while after failed attempts (of this login, or from this address). Your credentials may be right: try again later, or ask your vault administrator to unlock it.',
      where,
    ),
  https_required: (where) =>
    vscode.l10n.t(
      '{0}: the vault accepts API requests over HTTPS only. Run "Vaultline: Connect to a Vault" again with its https:// address.',
      where,
    ),
  sign_in_refused: (where) =>
    vscode.l10n.t(
      '{0}: the vault refused to sign in. Check the login, password and API key (or the personal access token) and run "Vaultline: Connect to a Vault" again; if they are right, ask your vault administrator whether your account may use the API (the vault answers both the same way).',
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
  const explained = networkMessage(vaultError, where);
  if (explained !== undefined) return explained;
  // The server's own words say which value, which rule, which user: the core puts them next to
  // the sentence (first line, short, redacted).
  const forReason = vaultError.reason === undefined ? undefined : REASON_MESSAGES[vaultError.reason];
  const sentence =
    vaultError.code === 'rate_limited' && vaultError.retryAfterMs !== undefined
      ? waitMessage(where, vaultError.retryAfterMs)
      : (forReason ?? MESSAGES[vaultError.code])(where);
  return withServerWords(sentence, vaultError, redact);
}

/** A rate limit with the wait the vault asked for (`Retry-After`), in whole seconds. */
function waitMessage(where: string, retryAfterMs: number): string {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return seconds === 1
    ? vscode.l10n.t('{0}: too many requests. The vault asks to wait 1 second; retry then.', where)
    : vscode.l10n.t(
        '{0}: too many requests. The vault asks to wait {1} seconds; retry then.',
        where,
        seconds,
      );
}

/**
 * What the view and search say when a login may read no folder (no role, or roles without folders):
 * the connection works, so it is not an error, and only an administrator can change it.
 *
 * @param login The connection's login.
 */
export function noReadableFolderMessage(login: string): string {
  return vscode.l10n.t(
    '{0} may read no folder of this vault. Ask a vault administrator to give {0} a role with access to a folder.',
    login,
  );
}

/**
 * A request from a browser (VS Code for the Web) that got no answer, when the core could tell why:
 * the vault runs but does not allow this window's origin (CORS), or an https page may not call a
 * plain http vault. Says which server setting to change, with the exact origin.
 */
function networkMessage(error: VaultError, where: string): string | undefined {
  if (error.code !== 'network' || error.requestOrigin === undefined) return undefined;
  const origin = error.requestOrigin;
  if (error.reason === 'cors')
    return vscode.l10n.t(
      '{0}: the vault answers, but does not allow requests from {1} (CORS). On a Vaultline server, add {1} to VAULTLINE_CORS_ORIGINS and restart it; in front of TeamPass, the web server must allow that origin.',
      where,
      origin,
    );
  if (error.reason === 'mixed-content')
    return vscode.l10n.t(
      '{0}: the browser blocks plain http:// requests from {1}. Connect to the vault through https://.',
      where,
      origin,
    );
  return undefined;
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
