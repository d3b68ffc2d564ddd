import type { Middleware, types } from '@slack/bolt';
import type { ButtonClick } from '../actions/button-args.ts';
import type { Deps } from '../deps.ts';
import { errorFields } from '../safe-error.ts';
import { linkModal, statusModal } from './modal.ts';

/**
 * The button that opens the link form (App Home, or a message): in a new modal, or pushed onto
 * the modal it was clicked in.
 *
 * @param deps The bot's parts.
 * @returns The handler.
 */
export function openLinkFormAction(deps: Deps): Middleware<ButtonClick> {
  return async ({ ack, body, client }) => {
    await ack();
    const user = body.user.id;
    const externalId = deps.views.tag(user);
    let view: types.ModalView;
    if (!deps.linking) view = statusModal('This vault needs no linking.', externalId);
    else {
      // The login of an earlier link is filled in (a login is not a secret).
      const identity = await deps.accounts.whoIs(user, client).catch(() => undefined);
      view = linkModal(deps.config.linkCredentials, externalId, { login: identity?.login });
    }
    const open = body.view?.type === 'modal' ? client.views.push : client.views.open;
    await open({ trigger_id: body.trigger_id, view }).catch((error: unknown) =>
      deps.logger.warn(errorFields(error, deps.redact), 'could not open the link form'),
    );
  };
}
