import type { types } from '@slack/bolt';
import type { AuditRecord } from '../audit.ts';
import { plain } from '../blocks.ts';
import { ACTIONS, AUDIT_EVENTS } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { escapeText } from '../escape.ts';
import { errorFields } from '../safe-error.ts';
import { approverBlocks, minutes, outcomeText, requestText } from './messages.ts';
import type { AccessRequest } from './store.ts';

type Block = types.KnownBlock;

export async function updateApproverMessages(deps: Deps, request: AccessRequest): Promise<void> {
  await Promise.all(
    request.messages.map((message) => {
      const text = outcomeText(request, message.channel === deps.config.approvalsChannel);
      return deps
        .slack()
        .chat.update({
          channel: message.channel,
          ts: message.ts,
          text,
          blocks: [{ type: 'section', text: plain(text) }],
        })
        .catch((error: unknown) =>
          deps.logger.warn(errorFields(error, deps.redact), 'could not update a request message'),
        );
    }),
  );
}

export async function tellRequester(deps: Deps, request: AccessRequest): Promise<void> {
  const what = `“${escapeText(request.typed, 200)}”`;
  let text: string;
  const blocks: Block[] = [];
  if (request.status === 'approved' && request.itemId !== undefined) {
    text = `Your request for ${what} was approved by ${request.decidedBy}. You may reveal the password ${request.revealsLeft === 1 ? 'once' : `${request.revealsLeft} times`} within ${minutes((request.grantExpiresAt ?? 0) - (request.decidedAt ?? 0))} minutes.`;
    blocks.push(
      { type: 'section', text: plain(text) },
      {
        type: 'actions',
        block_id: `grant_${request.id}`,
        elements: [
          {
            type: 'button',
            action_id: ACTIONS.reveal,
            text: plain('Reveal password'),
            value: String(request.itemId),
          },
        ],
      },
    );
  } else {
    text =
      request.status === 'denied'
        ? `Your request for ${what} was denied by ${request.decidedBy}.`
        : `Your request for ${what} expired with no decision.`;
    blocks.push({ type: 'section', text: plain(text) });
  }
  await deps
    .slack()
    .chat.postMessage({ channel: request.requester, text, blocks, unfurl_links: false, unfurl_media: false })
    .catch((error: unknown) =>
      deps.logger.warn(errorFields(error, deps.redact), 'could not tell the requester'),
    );
}

/** Sends a new request to its approvers: a DM each, or one post in the approvals channel. */
export async function sendToApprovers(deps: Deps, request: AccessRequest): Promise<void> {
  const inChannel = deps.config.approvalsChannel !== undefined;
  const text = requestText(request, inChannel);
  const blocks = approverBlocks(request, text);
  const channels = deps.config.approvalsChannel ? [deps.config.approvalsChannel] : request.approvers;
  const posted = await Promise.all(
    channels.map(async (channel) => {
      const answer = await deps
        .slack()
        .chat.postMessage({ channel, text, blocks, unfurl_links: false, unfurl_media: false })
        .catch((error: unknown) => {
          deps.logger.warn(errorFields(error, deps.redact), 'could not send a request to an approver');
          return undefined;
        });
      return answer?.ts && answer.channel ? { channel: answer.channel, ts: answer.ts } : undefined;
    }),
  );
  await deps.requests.setMessages(
    request.id,
    posted.filter((message) => message !== undefined),
  );
}

/**
 * Audits the end of a request or of its grant that nobody decided (its time ran out), in the
 * requester's name.
 *
 * @param deps The bot's parts.
 * @param request The request.
 * @param event What ended.
 * @param outcome How.
 */
export async function auditEnded(
  deps: Pick<Deps, 'audit'>,
  request: AccessRequest,
  event: AuditRecord['event'],
  outcome: string,
): Promise<void> {
  await deps.audit.record({
    event,
    slackUser: request.requester,
    slackTeam: request.requesterTeam,
    login: request.requesterLogin,
    channel: undefined,
    requestId: request.id,
    itemId: request.itemId,
    label: request.itemLabel,
    outcome,
  });
}

/**
 * Audits a request that expired undecided and tells both sides.
 *
 * @param deps The bot's parts.
 * @param request The request.
 */
export async function announceExpired(deps: Deps, request: AccessRequest): Promise<void> {
  await auditEnded(deps, request, AUDIT_EVENTS.accessExpired, 'expired');
  await updateApproverMessages(deps, request);
  await tellRequester(deps, request);
}
