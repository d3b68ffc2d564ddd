import type { types } from '@slack/bolt';
import { plain } from '../blocks.ts';
import { ACTIONS, COMMAND } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { escapeText } from '../escape.ts';
import { accountProblemText } from './account-messages.ts';
import type { AccountIdentity } from './accounts.ts';
import { isLinkAdmin } from './admins.ts';
import { LINK_BUTTON } from './offer.ts';

type Block = types.KnownBlock;

/**
 * The App Home's part about the person's link: to whom they are linked and how (with Unlink), or
 * why not (with the button that opens the link form); for link admins, how to unlink someone.
 *
 * @param deps The bot's parts.
 * @param user The Slack user.
 * @param identity Who they are, as far as the bot knows.
 * @returns The blocks.
 */
export async function linkBlocks(deps: Deps, user: string, identity: AccountIdentity): Promise<Block[]> {
  const blocks: Block[] = [];
  const unlink: types.Button = {
    type: 'button',
    action_id: ACTIONS.unlinkSelf,
    style: 'danger',
    text: plain('Unlink'),
    confirm: {
      title: plain('Unlink your account?'),
      text: plain('The bot forgets your TeamPass credentials and signs its session out.'),
      confirm: plain('Unlink'),
      deny: plain('Keep it'),
    },
  };
  const link: types.Button = {
    type: 'button',
    action_id: ACTIONS.linkOpen,
    style: 'primary',
    text: plain(LINK_BUTTON),
  };
  if (identity.ok) {
    const how =
      identity.link?.method === 'personal-access-token' ? 'a personal access token' : 'password and API key';
    const since = identity.link ? `, since ${new Date(identity.link.linkedAt).toISOString()}` : '';
    blocks.push(
      {
        type: 'section',
        text: plain(
          `Linked to the TeamPass account ${escapeText(identity.login, 80)} (${how}${since}). You see only what it may read: TeamPass decides.`,
        ),
      },
      { type: 'actions', block_id: 'link_actions', elements: [unlink] },
    );
  } else {
    blocks.push(
      { type: 'section', text: plain(accountProblemText(identity.reason)) },
      {
        type: 'actions',
        block_id: 'link_actions',
        elements: identity.reason === 'unlinked' ? [link] : [link, unlink],
      },
      {
        type: 'context',
        elements: [
          plain(
            'The bot keeps what you link encrypted, signs in as you, and acts as you only when you ask it. Where your TeamPass allows personal access tokens, link one instead of your password: you can revoke it at any time.',
          ),
        ],
      },
    );
  }
  if (await isLinkAdmin(deps, user).catch(() => false))
    blocks.push({
      type: 'context',
      elements: [
        plain(
          `Link admin: ${COMMAND} unlink <member ID> removes someone's link (audited, and they are told).`,
        ),
      ],
    });
  return blocks;
}
