import type { Middleware, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import type { Deps } from '../deps.ts';
import { errorFields } from '../safe-error.ts';
import { INPUT, parseLinkForm } from './form.ts';
import { statusModal } from './modal.ts';
import { verifyAndLink } from './verify.ts';

/**
 * The link form's submission: a form filled in wrongly is shown its errors; else the form goes at
 * once and the sign-in that checks it runs after the ack ({@link verifyAndLink}).
 *
 * @param deps The bot's parts.
 * @returns The handler.
 */
export function submitLinkForm(deps: Deps): Middleware<SlackViewMiddlewareArgs<ViewSubmitAction>> {
  return async (args) => {
    // The guards checked that this external_id is the one the bot gave this person's modal.
    const externalId = args.view.external_id;
    if (!deps.linking || !externalId) {
      await args.ack();
      return;
    }
    const values = args.view.state.values;
    const parsed = parseLinkForm(deps.config.linkCredentials, (block) => values[block]?.[INPUT]?.value ?? '');
    if (!parsed.ok) {
      await args.ack({ response_action: 'errors', errors: parsed.errors });
      return;
    }
    // The form goes at once (the secrets leave the view); the outcome replaces it.
    await args.ack({
      response_action: 'update',
      view: statusModal('Checking your TeamPass account…', externalId),
    });
    const who = {
      user: args.body.user.id,
      team: args.body.team?.id ?? undefined,
      client: args.client,
      externalId,
    };
    await deps.ackFirst.quiet();
    await deps.afterAck(() =>
      verifyAndLink(deps, who, parsed.credentials).catch((error: unknown) =>
        deps.logger.warn(errorFields(error, deps.redact), 'could not link an account'),
      ),
    );
  };
}
