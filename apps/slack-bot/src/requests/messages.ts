import type { types } from '@slack/bolt';
import { plain } from '../blocks.ts';
import { ACTIONS, MAX_REASON_LENGTH } from '../constants.ts';
import { escapeText } from '../escape.ts';
import type { AccessRequest } from './store.ts';

type Block = types.KnownBlock;

export const minutes = (ms: number) => Math.max(1, Math.round(ms / 60_000));

/**
 * The request as the approvers read it. A DM goes to an approver who may read the item: it names
 * the item. A post to the approvals channel is read by everyone there: it carries only what the
 * requester typed, and names the approvers who may read the item.
 */
export function requestText(request: AccessRequest, inChannel: boolean): string {
  const item = inChannel
    ? `“${escapeText(request.typed, 200)}” (approvers who may read it: ${request.approvers.join(', ')})`
    : `item “${escapeText(request.itemLabel ?? '', 200)}” (#${request.itemId}), asked for as “${escapeText(request.typed, 200)}”`;
  const reason = request.reason
    ? `\nReason: ${escapeText(request.reason, MAX_REASON_LENGTH)}`
    : '\nNo reason given.';
  return `Access request from Slack user ${request.requester} (vault user ${escapeText(request.requesterLogin, 80)}): a one-time reveal of ${item}.${reason}\nIt expires in ${minutes(request.expiresAt - request.createdAt)} minutes.`;
}

export function approverBlocks(request: AccessRequest, text: string): Block[] {
  const buttons: types.Button[] = [
    {
      type: 'button',
      action_id: ACTIONS.approve,
      style: 'primary',
      text: plain('Approve'),
      value: request.id,
    },
  ];
  buttons.push({
    type: 'button',
    action_id: ACTIONS.deny,
    style: 'danger',
    text: plain('Deny'),
    value: request.id,
  });
  return [
    { type: 'section', text: plain(text) },
    { type: 'actions', block_id: `request_${request.id}`, elements: buttons },
  ];
}

export function outcomeText(request: AccessRequest, inChannel: boolean): string {
  const what = `“${escapeText((inChannel ? undefined : request.itemLabel) ?? request.typed, 200)}”`;
  switch (request.status) {
    case 'approved':
      return `Approved by ${request.decidedBy}: Slack user ${request.requester} may reveal ${what} ${request.revealsLeft === 1 ? 'once' : `${request.revealsLeft} times`} within ${minutes((request.grantExpiresAt ?? 0) - (request.decidedAt ?? 0))} minutes.`;
    case 'denied':
      return `Denied by ${request.decidedBy}: the request of Slack user ${request.requester} for ${what}.`;
    case 'expired':
      return `Expired with no decision: the request of Slack user ${request.requester} for ${what}.`;
    default:
      return `The grant to Slack user ${request.requester} for ${what} has ended.`;
  }
}
