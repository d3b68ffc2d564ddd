import type { App, BlockAction, ButtonAction, Middleware } from '@slack/bolt';
import type { ButtonClick } from '../actions/button-args.ts';
import { ACTIONS } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { decideAction } from './decide.ts';
import { requestAccessAction } from './request.ts';

/**
 * Registers the request flow's buttons: Request access (on a refused get), Approve and Deny.
 *
 * @param app The Bolt app.
 * @param deps The bot's parts.
 */
export function registerRequestAccess(app: App, deps: Deps): void {
  const buttons: [actionId: string, handler: Middleware<ButtonClick>][] = [
    [ACTIONS.requestAccess, requestAccessAction(deps)],
    [ACTIONS.approve, decideAction(deps, true)],
    [ACTIONS.deny, decideAction(deps, false)],
  ];
  for (const [actionId, handler] of buttons)
    app.action<BlockAction<ButtonAction>>({ type: 'block_actions', action_id: actionId }, handler);
}
