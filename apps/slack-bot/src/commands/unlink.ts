import type { Middleware, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { note } from '../blocks.ts';
import { publishHome } from '../bot/home.ts';
import { parseCommandText } from '../command-text.ts';
import { AUDIT_EVENTS, COMMAND } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { UNEXPECTED_ERROR_MESSAGE } from '../error-messages.ts';
import { escapeText } from '../escape.ts';
import { isLinkAdmin } from '../linking/admins.ts';
import { unlinkSelf } from '../linking/unlink.ts';
import { commandCaller } from '../run-as-user.ts';
import { errorFields } from '../safe-error.ts';

/** A Slack user id as typed or as Slack escapes a mention: `U0123ABC`, `<@U0123ABC>`, `<@U0123ABC|name>`. */
export function memberIdOf(text: string): string | undefined {
  const match = /^(?:<@)?([UW][A-Z0-9]{2,30})(?:\|[^>]{0,100})?>?$/.exec(text.trim());
  return match?.[1];
}

/**
 * `/vault unlink`: removes the person's own link; `/vault unlink <member ID>` removes someone
 * else's, for link admins only (audited, and the person is told by DM). What follows `unlink` is
 * shown back only when it is a Slack member id.
 *
 * @param deps The bot's parts.
 * @returns The handler.
 */
export function unlinkCommand(deps: Deps): Middleware<SlackCommandMiddlewareArgs> {
  return async (args) => {
    const { arg } = parseCommandText(args.command.text);
    const caller = commandCaller(args);
    const target = arg === '' ? caller.slackUser : memberIdOf(arg);
    if (target === undefined) {
      await args.ack(note(`Usage: ${COMMAND} unlink, or ${COMMAND} unlink <member ID> for a link admin.`));
      return;
    }
    if (!deps.accounts.linking) {
      await args.ack(note('This vault needs no linking, so there is nothing to unlink.'));
      return;
    }
    await args.ack(note(target === caller.slackUser ? 'Unlinking your account…' : `Unlinking ${target}…`));
    await deps.ackFirst.quiet();
    await deps.afterAck(async () => {
      try {
        if (target === caller.slackUser) {
          const removed = await unlinkSelf(deps, {
            user: caller.slackUser,
            team: caller.slackTeam,
            channel: caller.channel,
          });
          await caller.respond(
            note(
              removed
                ? `Your TeamPass account ${escapeText(removed.login, 80)} is unlinked: the bot forgot its credentials and signed its session out.`
                : 'You have no linked account.',
            ),
          );
          await publishHome(deps, caller.slackUser, caller.client);
          return;
        }
        const who = {
          slackUser: target,
          slackTeam: caller.slackTeam,
          channel: caller.channel,
          decidedBy: caller.slackUser,
        };
        if (!(await isLinkAdmin(deps, caller.slackUser))) {
          await deps.audit.record({
            event: AUDIT_EVENTS.unlinkRefused,
            ...who,
            login: undefined,
            outcome: 'not_admin',
          });
          await caller.respond(note('Only the bot’s link admins can unlink another person’s account.'));
          return;
        }
        const removed = await deps.accounts.unlink(target);
        await deps.audit.record({
          event: AUDIT_EVENTS.accountUnlinked,
          ...who,
          login: removed?.login,
          outcome: removed ? 'by_admin' : 'not_linked',
        });
        if (!removed) {
          await caller.respond(note(`${target} has no linked account.`));
          return;
        }
        await caller.respond(
          note(`Unlinked the TeamPass account ${escapeText(removed.login, 80)} of ${target}. They are told.`),
        );
        await deps
          .slack()
          .chat.postMessage({
            channel: target,
            text: `A link admin of the bot (Slack user ${caller.slackUser}) unlinked your TeamPass account ${escapeText(removed.login, 80)}: the bot forgot its credentials. Link it again from the bot’s Home tab if you need it.`,
            unfurl_links: false,
            unfurl_media: false,
          })
          .catch((error: unknown) =>
            deps.logger.warn(
              errorFields(error, deps.redact),
              'could not tell a person their link was removed',
            ),
          );
        await publishHome(deps, target, deps.slack());
      } catch (error) {
        deps.logger.warn(errorFields(error, deps.redact), 'could not unlink');
        await caller.respond(note(UNEXPECTED_ERROR_MESSAGE)).catch(() => undefined);
      }
    });
  };
}
