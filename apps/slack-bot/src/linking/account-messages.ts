import { type EphemeralMessage, note } from '../blocks.ts';
import { IDENTITY_MESSAGES } from '../identity.ts';
import type { AccountFailure } from './accounts.ts';
import { linkOffer } from './offer.ts';

/** What a person without a linked account is told (with a button that opens the link form). */
export const LINK_MESSAGES: Readonly<Record<'unlinked' | 'link_refused' | 'link_unreadable', string>> = {
  unlinked:
    'Link your TeamPass account to use the bot: it then shows you what your account may read, and nothing else. Use the button below or the bot’s Home tab; never type a password in a channel.',
  link_refused:
    'TeamPass refused your linked account (its password or API key changed, or its API access was switched off), so the bot stopped signing in with it. Link it again with the button below.',
  link_unreadable:
    'The bot can no longer read your linked account (its encryption key was changed). Link it again with the button below.',
};

/**
 * What a person with no account to act as is told: how to get linked, or why they cannot be.
 *
 * @param reason Why there is no account.
 * @returns The message.
 */
export function accountProblem(reason: AccountFailure): EphemeralMessage {
  if (reason === 'unlinked' || reason === 'link_refused' || reason === 'link_unreadable')
    return linkOffer(LINK_MESSAGES[reason]);
  return note(IDENTITY_MESSAGES[reason]);
}

/**
 * The sentence alone (the App Home, a modal).
 *
 * @param reason Why there is no account.
 * @returns The sentence.
 */
export function accountProblemText(reason: AccountFailure): string {
  return reason === 'unlinked' || reason === 'link_refused' || reason === 'link_unreadable'
    ? LINK_MESSAGES[reason]
    : IDENTITY_MESSAGES[reason];
}
