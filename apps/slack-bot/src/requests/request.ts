import type { Middleware } from '@slack/bolt';
import { type ButtonClick, callerOf } from '../actions/button-args.ts';
import { note } from '../blocks.ts';
import { queryProblem } from '../command-text.ts';
import { AUDIT_EVENTS, COMMAND } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { escapeText } from '../escape.ts';
import { auditWho, type Caller, runAsUser } from '../run-as-user.ts';
import { approversFor, everyApprover, readersAmong } from './approvers.ts';
import { minutes } from './messages.ts';
import { announceExpired, sendToApprovers } from './notify.ts';
import { requestKey } from './parse.ts';
import type { Created, NewRequest } from './store.ts';
import { resolveTarget } from './target.ts';

/**
 * Makes an access request for what a person typed and sends it to the approvers who may read the
 * item. The person learns nothing of the item: the answer is the same whether it exists, whether
 * anyone may approve it, or not. One request per person and typed text is pending at a time.
 *
 * @param deps The bot's parts.
 * @param caller Who asks.
 * @param typed What they typed (an id or a label).
 * @param reason Why.
 */
export async function requestAccess(
  deps: Deps,
  caller: Caller,
  typed: string,
  reason: string,
): Promise<void> {
  await runAsUser(deps, caller, AUDIT_EVENTS.accessRequested, async ({ login, access }) => {
    const target = await resolveTarget(deps, typed);
    if (target && (await access.canRead(login, { id: target.id, folderId: target.folderId }))) {
      await caller.respond(note(`You can read this item already: run /vault get ${target.id}.`));
      return;
    }
    const who = { event: AUDIT_EVENTS.accessRequested, ...auditWho(caller, login), query: typed };
    // Decided from the configuration alone, never from the item.
    if ((await everyApprover(deps)).every((user) => user === caller.slackUser)) {
      await deps.audit.record({ ...who, outcome: 'no_approver' });
      await caller.respond(
        note('Nobody but you can approve requests, so this one was not sent. Ask a vault admin.'),
      );
      return;
    }
    const approvers = target
      ? (await readersAmong(deps, await approversFor(deps, target.folderId), target)).filter(
          (user) => user !== caller.slackUser,
        )
      : [];
    const made = await createOnce(deps, {
      requester: caller.slackUser,
      requesterTeam: caller.slackTeam,
      requesterLogin: login,
      typed,
      reason,
      item: target,
      approvers,
      dedupeKey: requestKey(typed),
    });
    const { request } = made;
    if (!made.created) {
      await deps.audit.record({ ...who, requestId: request.id, outcome: 'already_pending' });
      await caller.respond(
        note(
          `Your request for “${escapeText(typed, 200)}” is already pending; it expires in ${minutes(request.expiresAt - Date.now())} minutes. You will get a message when it is decided.`,
        ),
      );
      return;
    }
    await deps.audit.record({
      ...who,
      itemId: target?.id,
      label: target?.label,
      requestId: request.id,
      // For the audit only: the requester is told the same either way.
      outcome: approvers.length > 0 ? 'pending' : 'pending_no_reader',
    });
    // The requester's answer does not wait for the approvers' messages (Slack allows about one
    // post a second per channel; a busy approver's DM would hold every answer back).
    await caller.respond(
      note(
        `Your request for “${escapeText(typed, 200)}” went to the approvers. It expires in ${minutes(request.expiresAt - request.createdAt)} minutes; you will get a message when it is decided.`,
      ),
    );
    if (approvers.length > 0) await sendToApprovers(deps, request);
  });
}

/**
 * Creates the request, or finds the same one pending. One that is pending but past its time (the
 * sweep has not ended it yet) is ended here, with its messages, and the request made anew.
 */
async function createOnce(deps: Deps, request: NewRequest): Promise<Created> {
  const expiresInMs = deps.config.requestExpirySeconds * 1000;
  const made = await deps.requests.create(request, expiresInMs);
  if (made.created || made.request.expiresAt > Date.now()) return made;
  const ended = await deps.requests.expire(made.request.id);
  if (ended) await announceExpired(deps, ended);
  return deps.requests.create(request, expiresInMs);
}

/**
 * Request access (the button on a refused get): asks for what the person typed, checked as the
 * command checks it, with no reason.
 *
 * @param deps The bot's parts.
 * @returns The handler.
 */
export function requestAccessAction(deps: Deps): Middleware<ButtonClick> {
  return async (args) => {
    await args.ack();
    // The button carries what the person typed: checked as the command checks it.
    const typed = (args.action.value ?? '').trim();
    const problem = queryProblem(typed, `${COMMAND} request <id or label> [reason]`);
    if (problem) {
      await callerOf(args, deps.views).respond(note(escapeText(problem)));
      return;
    }
    await requestAccess(deps, callerOf(args, deps.views), typed, '');
  };
}
