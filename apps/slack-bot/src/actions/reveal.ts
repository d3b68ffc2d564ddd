import type { Middleware } from '@slack/bolt';
import { note, redacted, redactedModal, revealed, revealedModal } from '../blocks.ts';
import { AUDIT_EVENTS } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { auditWho, runAsUser } from '../run-as-user.ts';
import { toListed } from '../search.ts';
import { type ButtonClick, callerOf, itemIdOf } from './button-args.ts';

/**
 * "Reveal password": checks the clicker's rights again (not from cache), then shows the password
 * to them only, in the ephemeral message the button was on (or in a modal), and hides it again
 * after the configured delay. Rate limited per Slack user.
 *
 * @param deps The bot's parts.
 * @returns The handler.
 */
export function revealAction(deps: Deps): Middleware<ButtonClick> {
  return async (args) => {
    await args.ack();
    const caller = callerOf(args);
    const id = itemIdOf(args);
    const base = { ...auditWho(caller, undefined), itemId: id };
    await runAsUser(deps, caller, AUDIT_EVENTS.reveal, async (login) => {
      const limit = await deps.limiter.take(caller.slackUser);
      if (!limit.allowed) {
        await deps.audit.record(
          { ...base, event: AUDIT_EVENTS.revealLimited, login, outcome: 'rate_limited' },
          caller.client,
        );
        await caller.respond(
          note(`You have revealed many passwords in a short time. Please wait ${limit.retryInSeconds} s.`),
        );
        return;
      }
      const item = id === undefined ? undefined : await deps.search.readFresh(login, id);
      if (item === undefined) {
        await deps.audit.record(
          { ...base, event: AUDIT_EVENTS.revealDenied, login, outcome: 'no_access' },
          caller.client,
        );
        await caller.respond(note('You cannot read this item (any more), so its password is not shown.'));
        return;
      }
      const listed = toListed(item);
      if (item.password === '') {
        await caller.respond(
          note('This item has no password the vault lets the bot read (it may be in a personal folder).'),
        );
        return;
      }
      const delayMs = deps.config.revealSeconds * 1000;
      // Each redaction is scheduled before awaiting the post, so nothing that fails later leaves the
      // password on screen; it waits for the post, so it can never land first.
      if (deps.config.revealMode === 'modal') {
        const opened = caller.client.views.open({
          trigger_id: args.body.trigger_id,
          view: revealedModal(listed, item.password, deps.config.revealSeconds),
        });
        deps.timers.schedule(async () => {
          const viewId = (await opened.catch(() => undefined))?.view?.id;
          if (viewId) await caller.client.views.update({ view_id: viewId, view: redactedModal(listed) });
        }, delayMs);
        await opened;
      } else {
        const shown = caller.respond(revealed(listed, item.password, deps.config.revealSeconds));
        deps.timers.schedule(async () => {
          await shown.catch(() => undefined);
          await caller.respond(redacted(listed));
        }, delayMs);
        await shown;
      }
      await deps.audit.record(
        { ...base, event: AUDIT_EVENTS.reveal, login, label: item.label, outcome: 'shown' },
        caller.client,
      );
    });
  };
}
