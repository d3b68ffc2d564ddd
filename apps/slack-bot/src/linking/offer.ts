import { type EphemeralMessage, offerWithButton, plain } from '../blocks.ts';
import { ACTIONS } from '../constants.ts';

/**
 * A message that asks the person to link their vault account, with the button that opens the
 * link form in a modal (only they see it; nothing is typed in the channel).
 *
 * @param text The bot's own sentence.
 * @returns The message.
 */
export function linkOffer(text: string): EphemeralMessage {
  return offerWithButton(text, 'link_offer', {
    type: 'button',
    action_id: ACTIONS.linkOpen,
    style: 'primary',
    text: plain(LINK_BUTTON),
  });
}

/** The label of the button that opens the link form. */
export const LINK_BUTTON = 'Link your TeamPass account';
