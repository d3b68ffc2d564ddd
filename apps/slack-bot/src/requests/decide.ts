import type { Middleware } from '@slack/bolt';
import { isVaultError } from '@vaultline/protocol';
import { type ButtonClick, callerOf } from '../actions/button-args.ts';
import { note } from '../blocks.ts';
import { AUDIT_EVENTS } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { friendlyMessage } from '../error-messages.ts';
import { LINK_MESSAGES } from '../linking/account-messages.ts';
import type { AccountUse } from '../linking/accounts.ts';
import { auditWho } from '../run-as-user.ts';
import { errorFields } from '../safe-error.ts';
import { approversFor } from './approvers.ts';
import { tellRequester, updateApproverMessages } from './notify.ts';
import type { AccessRequest } from './store.ts';

/**
 * Approve / Deny: the clicker is checked at click time against the configuration (never the
 * message): a listed approver, not the requester, and for approval able to read the item now.
 * The first decision wins, whichever bot instance receives it.
 */
export function decideAction(deps: Deps, approve: boolean): Middleware<ButtonClick> {
  return async (args) => {
    await args.ack();
    const clicker = args.body.user.id;
    const caller = callerOf(args, deps.views);
    const refuse = async (request: AccessRequest | undefined, outcome: string, message: string) => {
      await deps.audit.record({
        event: AUDIT_EVENTS.accessRefused,
        ...auditWho(caller, undefined),
        requestId: request?.id,
        itemId: request?.itemId,
        decidedBy: clicker,
        outcome,
      });
      await caller.respond(note(message));
    };
    try {
      const request = await deps.requests.get(args.action.value ?? '');
      if (!request) return await refuse(undefined, 'unknown_request', 'This request does not exist.');
      if (request.status !== 'pending' || request.expiresAt <= Date.now())
        return await refuse(request, 'not_pending', 'This request was already decided or has expired.');
      if (clicker === request.requester)
        return await refuse(request, 'self_approval', 'Nobody decides their own request.');
      if (!(await approversFor(deps, request.folderId)).includes(clicker))
        return await refuse(request, 'not_approver', 'You are not an approver of this request.');
      if (approve) {
        if (request.itemId === undefined || request.folderId === undefined)
          return await refuse(
            request,
            'no_item',
            'This request names no single item; it can only be denied.',
          );
        const item = { id: request.itemId, folderId: request.folderId };
        let used: AccountUse<boolean>;
        try {
          // Rights read afresh, as the approver's vault account reads them.
          used = await deps.accounts.use(clicker, args.client, ({ login, access }) => {
            access.invalidate(login);
            return access.canRead(login, item);
          });
        } catch (error) {
          if (!deps.accounts.linking || !isVaultError(error, 'unauthorized')) throw error;
          // A lock is TeamPass's, for a while: the approver's link is kept; they try again later.
          if (error.reason === 'sign_in_locked')
            return await refuse(request, 'approver_locked', friendlyMessage(error, true));
          return await refuse(request, 'approver_link_refused', LINK_MESSAGES.link_refused);
        }
        if (!used.ok)
          return await refuse(
            request,
            'approver_unlinked',
            deps.accounts.linking
              ? 'Link your TeamPass account first (the bot’s Home tab), then approve again: the password is read with your account.'
              : 'You are not linked to a vault user.',
          );
        if (!used.value)
          return await refuse(
            request,
            'approver_cannot_read',
            'You cannot read this item yourself, so you cannot approve access to it.',
          );
      }
      const decided = await deps.requests.decide(request.id, clicker, approve, {
        ms: deps.config.grantSeconds * 1000,
        reveals: deps.config.grantReveals,
      });
      if (!decided)
        return await refuse(request, 'not_pending', 'This request was already decided or has expired.');
      await deps.audit.record({
        event: approve ? AUDIT_EVENTS.accessApproved : AUDIT_EVENTS.accessDenied,
        slackUser: decided.requester,
        slackTeam: decided.requesterTeam,
        login: decided.requesterLogin,
        channel: caller.channel,
        requestId: decided.id,
        itemId: decided.itemId,
        label: decided.itemLabel,
        decidedBy: clicker,
        outcome: decided.status,
      });
      await updateApproverMessages(deps, decided);
      await tellRequester(deps, decided);
    } catch (error) {
      deps.logger.warn(errorFields(error, deps.redact), 'could not decide a request');
      await caller
        .respond(note('The bot could not record that decision. Please try again.'))
        .catch(() => undefined);
    }
  };
}
