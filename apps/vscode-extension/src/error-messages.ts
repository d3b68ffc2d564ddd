import { isVaultError, toVaultError, type VaultErrorCode } from '@vaultline/protocol';

/** What to tell the user for each error code: one plain sentence, never a stack trace. */
const MESSAGES: Readonly<Record<VaultErrorCode, (where: string) => string>> = {
  unauthorized: (where) =>
    `${where}: the vault rejected the API key. Run "Vaultline: Connect" again with a valid key.`,
  forbidden: (where) => `${where}: you have no right to do this in the vault.`,
  not_found: (where) => `${where}: not found in the vault (it may have been deleted).`,
  duplicate_label: (where) => `${where}: an item with a similar label already exists. Choose another label.`,
  invalid_request: (where) => `${where}: the vault refused the request.`,
  api_disabled: (where) => `${where}: the vault's API is switched off. Ask your vault administrator.`,
  too_large: (where) => `${where}: the request or answer is too large.`,
  rate_limited: (where) => `${where}: too many requests. Wait a moment and retry.`,
  invalid_response: (where) => `${where}: the vault sent an answer Vaultline does not understand.`,
  network: (where) => `${where}: cannot reach the vault. Is the server running and the URL right?`,
  timeout: (where) => `${where}: the vault did not answer in time.`,
  aborted: (where) => `${where}: cancelled.`,
  server: (where) => `${where}: the vault failed with a server error.`,
};

/**
 * Turns anything thrown into one line for the user.
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
  if (error instanceof UserFacingError) return `${where}: ${error.message}`;
  const vaultError = isVaultError(error) ? error : toVaultError(error, redact);
  // Refused before anything was sent (bad URL, value too long): the core's own one-line message says
  // exactly what was expected and received.
  if (
    vaultError.status === undefined &&
    (vaultError.code === 'invalid_request' || vaultError.code === 'too_large')
  ) {
    return `${where}: ${redact(vaultError.message).split('\n')[0]?.slice(0, 300)}`;
  }
  const base = MESSAGES[vaultError.code](where);
  // The server's own words help for refusals (which value, which rule), but only its first line.
  const detail =
    vaultError.serverMessage && ['invalid_request', 'forbidden', 'duplicate_label'].includes(vaultError.code)
      ? ` (${redact(vaultError.serverMessage).split('\n')[0]?.slice(0, 200)})`
      : '';
  return base + detail;
}

/** An error the extension raises itself for the user to read, e.g. a missing right. */
export class UserFacingError extends Error {
  override name = 'UserFacingError';
}
