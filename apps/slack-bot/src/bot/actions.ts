import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { openUrlAction } from '../actions/open-url.ts';
import { pageAction } from '../actions/page.ts';
import { revealAction } from '../actions/reveal.ts';
import { showLoginAction } from '../actions/show-login.ts';
import { ACTIONS } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { registerRequestAccess } from '../requests/register.ts';

/**
 * Registers the buttons: Show login, Reveal password, Open URL, the page buttons, and the request
 * flow's Request access, Approve and Deny.
 *
 * @param app The Bolt app.
 * @param deps The bot's parts.
 */
export function registerActions(app: App, deps: Deps): void {
  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: ACTIONS.reveal },
    revealAction(deps),
  );
  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: ACTIONS.showLogin },
    showLoginAction(deps),
  );
  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: ACTIONS.openUrl },
    openUrlAction(),
  );
  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: new RegExp(`^${ACTIONS.page}_`) },
    pageAction(deps),
  );
  registerRequestAccess(app, deps);
}
