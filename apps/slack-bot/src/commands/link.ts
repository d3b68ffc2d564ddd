import type { Middleware, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { note } from '../blocks.ts';
import { parseCommandText } from '../command-text.ts';
import { AUDIT_EVENTS, COMMAND } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { linkOffer } from '../linking/offer.ts';

/**
 * `/vault link`: never takes credentials. With anything after `link` (a login, a password typed by
 * mistake) it refuses without repeating, keeping or logging it; else it answers with the button
 * that opens the link form in a modal (or says the vault needs no linking).
 *
 * @param deps The bot's parts.
 * @returns The handler.
 */
export function linkCommand(deps: Deps): Middleware<SlackCommandMiddlewareArgs> {
  return async (args) => {
    const { arg } = parseCommandText(args.command.text);
    if (arg !== '') {
      // Audited first, as every answer is (the line is written before the answer goes out).
      await deps.audit.record({
        event: AUDIT_EVENTS.linkTyped,
        slackUser: args.command.user_id,
        slackTeam: args.command.team_id,
        login: undefined,
        channel: args.command.channel_id,
        outcome: 'refused',
      });
      await args.ack(
        note(
          `Never type a password, key or token in Slack: what followed “link” was not used, kept or shown, but if it was a password, change it in TeamPass. Link your account in a private window instead: ${COMMAND} link alone, or the bot’s Home tab.`,
        ),
      );
      return;
    }
    if (!deps.accounts.linking) {
      await args.ack(
        note(
          'This vault needs no linking: the bot acts for the vault user your Slack account is mapped to. Ask a vault admin if the bot shows you nothing.',
        ),
      );
      return;
    }
    await args.ack(
      linkOffer(
        'Link your TeamPass account in a private window: use the button below (or the bot’s Home tab). Never type a password in a command.',
      ),
    );
  };
}
