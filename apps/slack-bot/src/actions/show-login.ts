import type { Middleware } from '@slack/bolt';
import { loginShown, note } from '../blocks.ts';
import { AUDIT_EVENTS } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { auditWho, runAsUser } from '../run-as-user.ts';
import { toListed } from '../search.ts';
import { type ButtonClick, callerOf, itemIdOf } from './button-args.ts';

/**
 * "Show login": the item's login in a plain-text block to copy, after checking — afresh, as a
 * reveal does, never from the rights cache — that the clicker may read the item.
 *
 * @param deps The bot's parts.
 * @returns The handler.
 */
export function showLoginAction(deps: Deps): Middleware<ButtonClick> {
  return async (args) => {
    await args.ack();
    const caller = callerOf(args, deps.views);
    const id = itemIdOf(args);
    await runAsUser(deps, caller, AUDIT_EVENTS.showLogin, async ({ login, search }) => {
      const item = id === undefined ? undefined : await search.readFresh(login, id);
      await deps.audit.record({
        event: AUDIT_EVENTS.showLogin,
        ...auditWho(caller, login),
        itemId: id,
        label: item?.label,
        outcome: item ? 'shown' : 'no_access',
      });
      await caller.respond(
        item ? loginShown(toListed(item, item.access)) : note('You cannot read this item (any more).'),
      );
    });
  };
}
