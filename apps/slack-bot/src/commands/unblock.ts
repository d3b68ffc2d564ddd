import type { Middleware, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { note } from '../blocks.ts';
import { parseCommandText } from '../command-text.ts';
import { AUDIT_EVENTS, COMMAND } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { UNEXPECTED_ERROR_MESSAGE } from '../error-messages.ts';
import { isLinkAdmin } from '../linking/admins.ts';
import { commandCaller } from '../run-as-user.ts';
import { errorFields } from '../safe-error.ts';
import { memberIdOf } from './unlink.ts';

/**
 * `/vault unblock <member ID>`, for link admins: lifts the member's block of link attempts (their
 * failed attempts count no more for them, nor for the logins they were kept from). Audited; the
 * failures still count towards the bot's budget, as TeamPass still counts them for its address.
 *
 * @param deps The bot's parts.
 * @returns The handler.
 */
export function unblockCommand(deps: Deps): Middleware<SlackCommandMiddlewareArgs> {
  return async (args) => {
    const { arg } = parseCommandText(args.command.text);
    const target = memberIdOf(arg);
    if (target === undefined) {
      await args.ack(note(`Usage: ${COMMAND} unblock <member ID>, for a link admin.`));
      return;
    }
    const linking = deps.linking;
    if (!linking) {
      await args.ack(note('This vault needs no linking, so there is nothing to unblock.'));
      return;
    }
    const caller = commandCaller(args);
    await args.ack(note(`Unblocking ${target}…`));
    await deps.ackFirst.quiet();
    await deps.afterAck(async () => {
      const who = {
        slackUser: target,
        slackTeam: caller.slackTeam,
        channel: caller.channel,
        login: undefined,
        decidedBy: caller.slackUser,
      };
      try {
        if (!(await isLinkAdmin(deps, caller.slackUser))) {
          await deps.audit.record({ event: AUDIT_EVENTS.signInsUnblocked, ...who, outcome: 'not_admin' });
          await caller.respond(note('Only the bot’s link admins can lift a block of link attempts.'));
          return;
        }
        const lifted = await linking.signIns.lift(target);
        await deps.audit.record({
          event: AUDIT_EVENTS.signInsUnblocked,
          ...who,
          outcome: `lifted:${lifted.failures}:${lifted.logins}`,
        });
        await caller.respond(
          note(
            lifted.failures === 0
              ? `${target} had no failed link attempts to lift.`
              : `Lifted ${target}’s block: ${lifted.failures} failed link attempts count no more for them${lifted.logins > 0 ? `, nor for the ${lifted.logins === 1 ? 'login' : `${lifted.logins} logins`} they were kept from` : ''}. They still count towards the bot’s budget of failed sign-ins.`,
          ),
        );
      } catch (error) {
        deps.logger.warn(errorFields(error, deps.redact), 'could not lift a block of link attempts');
        await caller.respond(note(UNEXPECTED_ERROR_MESSAGE)).catch(() => undefined);
      }
    });
  };
}
