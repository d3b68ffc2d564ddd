import type { App, BlockAction, ButtonAction, Middleware, types } from '@slack/bolt';
import { foldLabel, type Item, isVaultError, type VaultClient } from '@vaultline/protocol';
import { type ButtonClick, callerOf, readItemId } from '../actions/button-args.ts';
import { note, plain } from '../blocks.ts';
import { queryProblem } from '../command-text.ts';
import { ACTIONS, AUDIT_EVENTS, COMMAND, MAX_REASON_LENGTH } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { friendlyMessage } from '../error-messages.ts';
import { escapeText } from '../escape.ts';
import { LINK_MESSAGES } from '../linking/account-messages.ts';
import type { Account, AccountUse } from '../linking/accounts.ts';
import { auditWho, type Caller, runAsUser } from '../run-as-user.ts';
import { errorFields } from '../safe-error.ts';
import { expand } from '../user-groups.ts';
import type { AccessRequest, Created, NewRequest } from './store.ts';

type Block = types.KnownBlock;

/**
 * Splits `/vault request` text: a quoted label (`"db main" because …`) or the first word (an id or
 * a one-word label), then the reason.
 *
 * @param text The text after `request`.
 * @returns What names the item, and the reason (cut to its limit).
 */
export function parseRequestText(text: string): { typed: string; reason: string } {
  const trimmed = text.trim();
  const quoted = /^["“]([^"”]+)["”]\s*([\s\S]*)$/.exec(trimmed);
  const [, typed = '', reason = ''] = quoted ?? /^(\S+)\s*([\s\S]*)$/.exec(trimmed) ?? [];
  return { typed: typed.trim(), reason: [...reason.trim()].slice(0, MAX_REASON_LENGTH).join('') };
}

/**
 * The Slack users who approve requests for a folder, now: the folder's approvers from the
 * configuration, else the default ones, user groups expanded through the Web API.
 *
 * @param deps The bot's parts.
 * @param folderId The item's folder, when known.
 * @returns User ids.
 */
export async function approversFor(deps: Deps, folderId: number | undefined): Promise<string[]> {
  const configured =
    (folderId === undefined ? undefined : deps.config.folderApprovers.get(folderId)) ?? deps.config.approvers;
  return expand(deps, configured);
}

/** Every approver the configuration names, for any folder, user groups expanded. */
async function everyApprover(deps: Deps): Promise<string[]> {
  const everyone = new Set<string>(deps.config.approvers);
  for (const ids of deps.config.folderApprovers.values()) for (const approver of ids) everyone.add(approver);
  return expand(deps, [...everyone]);
}

/**
 * The approvers who may read the item themselves (their vault user's rights, personal folders
 * included): the only ones who are asked, so that a label reaches nobody who cannot read it.
 */
async function readersAmong(
  deps: Deps,
  approvers: readonly string[],
  item: { id: number; folderId: number },
): Promise<string[]> {
  const readers = await Promise.all(
    approvers.map(async (approver) =>
      (await asApprover(deps, approver, ({ login, access }) => access.canRead(login, item)))
        ? approver
        : undefined,
    ),
  );
  return readers.filter((approver) => approver !== undefined);
}

/**
 * Runs work as an approver's vault account (the bot's key for their login, or their own linked
 * account). Undefined when they have none; where people link, also when the vault refuses their
 * account (theirs to fix: one approver's account does not fail another person's request).
 */
async function asApprover<T>(
  deps: Deps,
  approver: string,
  work: (account: Account) => Promise<T>,
): Promise<T | undefined> {
  try {
    const used = await deps.accounts.use(approver, deps.slack(), work);
    return used.ok ? used.value : undefined;
  } catch (error) {
    if (deps.accounts.linking && (isVaultError(error, 'unauthorized') || isVaultError(error, 'forbidden'))) {
      deps.logger.warn(
        { approver, ...errorFields(error, deps.redact) },
        'an approver’s linked account was refused',
      );
      return undefined;
    }
    throw error;
  }
}

/**
 * What makes two requests of one person the same: the id, or the label as the vault compares
 * labels. What was typed, never the item it names: the key must not tell the requester whether
 * two of their texts name one item.
 *
 * @param typed What was typed.
 * @returns The key.
 */
export function requestKey(typed: string): string {
  const id = readItemId(typed.trim());
  return id === undefined ? `label:${foldLabel(typed)}` : `id:${id}`;
}

async function readWith(vault: VaultClient, id: number): Promise<Item | undefined> {
  try {
    const items = await vault.readItems({ ids: [id] });
    return items.find((item) => item.id === id);
  } catch (error) {
    if (isVaultError(error, 'not_found')) return undefined;
    throw error;
  }
}

/**
 * Reads an item by id: with the bot's key where it reads everything; else with the approvers'
 * own accounts, the first that may read it (the vault answers nothing to the others).
 */
async function readItem(deps: Deps, id: number): Promise<Item | undefined> {
  if (deps.accounts.shared) return readWith(deps.accounts.shared, id);
  for (const approver of await everyApprover(deps)) {
    const item = await asApprover(deps, approver, ({ vault }) => readWith(vault, id));
    if (item) return item;
  }
  return undefined;
}

/**
 * The item a request names: by id (read with the bot's key, or where people link with an
 * approver's account), or by exact label among the items the approvers can read (they are the
 * ones who decide). Undefined when it names no single item.
 */
async function resolveTarget(
  deps: Deps,
  typed: string,
): Promise<{ id: number; label: string; folderId: number } | undefined> {
  const id = readItemId(typed);
  if (id !== undefined) {
    const item = await readItem(deps, id);
    return item && { id: item.id, label: item.label, folderId: item.folderId };
  }
  const found = new Map<number, { id: number; label: string; folderId: number }>();
  for (const approver of await everyApprover(deps)) {
    const got = await asApprover(deps, approver, ({ login, search }) => search.get(login, typed));
    if (got?.exact)
      for (const item of got.items)
        found.set(item.id, { id: item.id, label: item.label, folderId: item.folderId });
  }
  return found.size === 1 ? [...found.values()][0] : undefined;
}

const minutes = (ms: number) => Math.max(1, Math.round(ms / 60_000));

/**
 * The request as the approvers read it. A DM goes to an approver who may read the item: it names
 * the item. A post to the approvals channel is read by everyone there: it carries only what the
 * requester typed, and names the approvers who may read the item.
 */
function requestText(request: AccessRequest, inChannel: boolean): string {
  const item = inChannel
    ? `“${escapeText(request.typed, 200)}” (approvers who may read it: ${request.approvers.join(', ')})`
    : `item “${escapeText(request.itemLabel ?? '', 200)}” (#${request.itemId}), asked for as “${escapeText(request.typed, 200)}”`;
  const reason = request.reason
    ? `\nReason: ${escapeText(request.reason, MAX_REASON_LENGTH)}`
    : '\nNo reason given.';
  return `Access request from Slack user ${request.requester} (vault user ${escapeText(request.requesterLogin, 80)}): a one-time reveal of ${item}.${reason}\nIt expires in ${minutes(request.expiresAt - request.createdAt)} minutes.`;
}

function approverBlocks(request: AccessRequest, text: string): Block[] {
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

function outcomeText(request: AccessRequest, inChannel: boolean): string {
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

async function updateApproverMessages(deps: Deps, request: AccessRequest): Promise<void> {
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

async function tellRequester(deps: Deps, request: AccessRequest): Promise<void> {
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

/** Sends a new request to its approvers: a DM each, or one post in the approvals channel. */
async function sendToApprovers(deps: Deps, request: AccessRequest): Promise<void> {
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
 * Approve / Deny: the clicker is checked at click time against the configuration (never the
 * message): a listed approver, not the requester, and for approval able to read the item now.
 * The first decision wins, whichever bot instance receives it.
 */
function decideAction(deps: Deps, approve: boolean): Middleware<ButtonClick> {
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

/**
 * Registers the request flow's buttons: Request access (on a refused get), Approve and Deny.
 *
 * @param app The Bolt app.
 * @param deps The bot's parts.
 */
export function registerRequestAccess(app: App, deps: Deps): void {
  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: ACTIONS.requestAccess },
    async (args) => {
      await args.ack();
      // The button carries what the person typed: checked as the command checks it.
      const typed = (args.action.value ?? '').trim();
      const problem = queryProblem(typed, `${COMMAND} request <id or label> [reason]`);
      if (problem) {
        await callerOf(args, deps.views).respond(note(escapeText(problem)));
        return;
      }
      await requestAccess(deps, callerOf(args, deps.views), typed, '');
    },
  );
  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: ACTIONS.approve },
    decideAction(deps, true),
  );
  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: ACTIONS.deny },
    decideAction(deps, false),
  );
}

/**
 * Ends what is due: pending requests past their time (both sides are told) and grants past
 * theirs. Each row is taken by one instance only (one atomic update).
 *
 * @param deps The bot's parts.
 */
export async function sweepRequests(deps: Deps): Promise<void> {
  const { expired, closed } = await deps.requests.expireDue();
  for (const request of expired) await announceExpired(deps, request);
  for (const request of closed)
    await deps.audit.record({
      event: AUDIT_EVENTS.grantExpired,
      slackUser: request.requester,
      slackTeam: request.requesterTeam,
      login: request.requesterLogin,
      channel: undefined,
      requestId: request.id,
      itemId: request.itemId,
      label: request.itemLabel,
      outcome: request.revealsLeft <= 0 ? 'used' : 'expired',
    });
}

/** Audits a request that expired undecided and tells both sides. */
async function announceExpired(deps: Deps, request: AccessRequest): Promise<void> {
  await deps.audit.record({
    event: AUDIT_EVENTS.accessExpired,
    slackUser: request.requester,
    slackTeam: request.requesterTeam,
    login: request.requesterLogin,
    channel: undefined,
    requestId: request.id,
    itemId: request.itemId,
    label: request.itemLabel,
    outcome: 'expired',
  });
  await updateApproverMessages(deps, request);
  await tellRequester(deps, request);
}
