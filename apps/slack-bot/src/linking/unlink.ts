import type { Middleware } from '@slack/bolt';
import type { ButtonClick } from '../actions/button-args.ts';
import { publishHome } from '../bot/home.ts';
import { AUDIT_EVENTS } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { errorFields } from '../safe-error.ts';

/** Removes a person's own link, audits it, and republishes their App Home. */
export async function unlinkSelf(
  deps: Deps,
  who: { user: string; team: string | undefined; channel: string | undefined },
): Promise<{ login: string } | undefined> {
  const removed = await deps.accounts.unlink(who.user);
  await deps.audit.record({
    event: AUDIT_EVENTS.accountUnlinked,
    slackUser: who.user,
    slackTeam: who.team,
    login: removed?.login,
    channel: who.channel,
    outcome: removed ? 'by_user' : 'not_linked',
  });
  return removed;
}

/**
 * The App Home's Unlink: removes the person's own link, then publishes their App Home again.
 *
 * @param deps The bot's parts.
 * @returns The handler.
 */
export function unlinkSelfAction(deps: Deps): Middleware<ButtonClick> {
  return async ({ ack, body, client }) => {
    await ack();
    await deps.ackFirst.quiet();
    await deps.afterAck(async () => {
      try {
        await unlinkSelf(deps, { user: body.user.id, team: body.team?.id, channel: body.channel?.id });
      } catch (error) {
        deps.logger.warn(errorFields(error, deps.redact), 'could not unlink');
      }
      await publishHome(deps, body.user.id, client);
    });
  };
}
