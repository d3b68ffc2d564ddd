import { isVaultError, type VaultErrorCode, type VaultErrorReason } from '@vaultline/protocol';

/** What a person is told for each vault error: short, no detail that could hold a secret. */
export const VAULT_ERROR_MESSAGES: Readonly<Record<VaultErrorCode, string>> = {
  unauthorized: 'The vault refused the bot’s API key (wrong or revoked key). Please tell a vault admin.',
  forbidden:
    'The vault refused the bot’s request (API access switched off or address not allowed). Please tell a vault admin.',
  api_disabled: 'The vault’s API is switched off. Please tell a vault admin.',
  not_found: 'No item you can read matches.',
  duplicate_label: 'An item with that label already exists.',
  invalid_request: 'The vault could not understand that request. Check what you typed.',
  too_large: 'That request is too large for the vault.',
  rate_limited: 'The vault is busy right now. Please try again in a minute.',
  invalid_response: 'The vault sent an answer the bot could not read. Please tell a vault admin.',
  network: 'The vault cannot be reached right now. Please try again later.',
  timeout: 'The vault did not answer in time. Please try again later.',
  aborted: 'The request to the vault was cancelled.',
  server: 'The vault had an internal error. Please try again later.',
  unsupported: 'The vault cannot do that (its server has no such feature).',
};

/**
 * What a person is told instead, where the work ran as their own linked account: a refusal is
 * then about their account (theirs to fix), not the bot's key.
 */
export const LINKED_ERROR_MESSAGES: Readonly<Partial<Record<VaultErrorCode, string>>> = {
  unauthorized:
    'TeamPass refused your linked account (its password or API key changed, or its API access was switched off), so the bot stopped signing in with it. Link it again.',
  forbidden:
    'TeamPass refused this for your account (one of your API permissions may be switched off). Ask a TeamPass admin.',
  api_disabled: 'TeamPass’s API is switched off. Please tell a TeamPass admin.',
  rate_limited:
    'TeamPass is busy: it limits requests per person and per address, and everyone using this bot shares the bot’s address. Please try again in a minute.',
};

/** What a person is told for a reason the vault gave, where it changes what to do: instead of the code's. */
export const VAULT_REASON_MESSAGES: Readonly<Partial<Record<VaultErrorReason, string>>> = {
  key_revoked: 'The vault revoked the bot’s API key. Please tell a vault admin: the bot needs a new key.',
};

/** The message for anything that is not a vault error. */
export const UNEXPECTED_ERROR_MESSAGE =
  'Something went wrong in the bot. The error was logged; please try again.';

/**
 * Turns a thrown value into a message for a person.
 *
 * @param error What was thrown.
 * @param linked Whether the work ran as the person's own linked account.
 * @returns One short sentence, never a stack trace or a key.
 */
export function friendlyMessage(error: unknown, linked = false): string {
  if (!isVaultError(error)) return UNEXPECTED_ERROR_MESSAGE;
  if (linked && error.reason === 'sign_in_locked') {
    const minutes = Math.max(1, Math.ceil((error.retryAfterMs ?? 60_000) / 60_000));
    return `TeamPass has locked sign-ins through the bot for a while, after too many failed sign-ins. Your link is kept: please try again in ${minutes} min.`;
  }
  const forLinked = linked ? LINKED_ERROR_MESSAGES[error.code] : undefined;
  if (forLinked) {
    const seconds =
      error.retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(error.retryAfterMs / 1000));
    return error.code === 'rate_limited' && seconds !== undefined
      ? forLinked.replace('in a minute', `in ${seconds} s`)
      : forLinked;
  }
  const forReason = error.reason === undefined ? undefined : VAULT_REASON_MESSAGES[error.reason];
  return forReason ?? VAULT_ERROR_MESSAGES[error.code];
}
