import type { App, BlockAction, ButtonAction, ViewSubmitAction } from '@slack/bolt';
import { ACTIONS } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { openLinkFormAction } from './open.ts';
import { submitLinkForm } from './submit.ts';
import { unlinkSelfAction } from './unlink.ts';

/**
 * Registers the link flow: the button that opens the link form (App Home, or a message), the
 * form's submission (checked by signing in, kept sealed), and the App Home's Unlink.
 *
 * @param app The Bolt app.
 * @param deps The bot's parts.
 */
export function registerLink(app: App, deps: Deps): void {
  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: ACTIONS.linkOpen },
    openLinkFormAction(deps),
  );
  app.view<ViewSubmitAction>(ACTIONS.linkModal, submitLinkForm(deps));
  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: ACTIONS.unlinkSelf },
    unlinkSelfAction(deps),
  );
}
