import type { Middleware } from '@slack/bolt';
import { type Item, isVaultError } from '@vaultline/protocol';
import type { AuditRecord } from '../audit.ts';
import { note, redacted, redactedModal, revealed, revealedModal, revealingModal } from '../blocks.ts';
import { AUDIT_EVENTS } from '../constants.ts';
import type { Deps } from '../deps.ts';
import type { AccessRequest } from '../requests/store.ts';
import { auditWho, runAsUser } from '../run-as-user.ts';
import { errorFields } from '../safe-error.ts';
import { readItemOrNone, toListed } from '../search.ts';
import { type ButtonArgs, type ButtonClick, callerOf, itemIdOf, responseUrlOf } from './button-args.ts';

/**
 * "Reveal password": checks the clicker's rights again (not from cache) — or an approved access
 * grant for that item — then shows the password to them only, in the ephemeral message the button
 * was on (or in a modal), and hides it again after the configured delay. Rate limited per Slack
 * user. The attempt is audited before the password is sent, its outcome after.
 *
 * @param deps The bot's parts.
 * @returns The handler.
 */
export function revealAction(deps: Deps): Middleware<ButtonClick> {
  return async (args) => {
    await args.ack();
    const caller = callerOf(args, deps.views);
    const id = itemIdOf(args);
    const base = { ...auditWho(caller, undefined), itemId: id };
    await runAsUser(deps, caller, AUDIT_EVENTS.reveal, async ({ login, search }) => {
      const limit = await deps.revealLimiter.hit(caller.slackUser);
      if (!limit.allowed) {
        await deps.audit.record({
          ...base,
          event: AUDIT_EVENTS.revealLimited,
          login,
          outcome: 'rate_limited',
        });
        await caller.respond(
          note(`You have revealed many passwords in a short time. Please wait ${limit.retryAfterSeconds} s.`),
        );
        return;
      }
      let item = id === undefined ? undefined : await search.readFresh(login, id);
      let granted:
        | { requestId: string; decidedBy: string | undefined; readAs: string | undefined }
        | undefined;
      let refusal = 'no_access';
      if (item === undefined && id !== undefined) {
        // An approved access request lets the bot reveal that one item, within its time and count.
        // A reveal is spent only once the value was read: a refused read leaves the grant as it was;
        // of concurrent clicks on the last reveal, the one that spends it shows the password.
        const grant = await deps.requests.findGrant(caller.slackUser, id);
        if (grant) {
          const read = await readGranted(deps, grant, id);
          granted = { requestId: grant.id, decidedBy: grant.decidedBy, readAs: read.readAs };
          if (!read.item) refusal = read.refusal;
          else if (await deps.requests.spendGrant(grant.id))
            item = { ...read.item, access: 'one approved reveal' };
          else refusal = 'grant_used';
        }
      }
      if (item === undefined) {
        // The same answer whatever stood in the way (the requester learns nothing of the approver).
        await deps.audit.record({
          ...base,
          event: AUDIT_EVENTS.revealDenied,
          login,
          requestId: granted?.requestId,
          decidedBy: granted?.decidedBy,
          outcome: refusal,
        });
        await caller.respond(note('You cannot read this item (any more), so its password is not shown.'));
        return;
      }
      if (item.password === '') {
        await caller.respond(
          note('This item has no password the vault lets the bot read (it may be in a personal folder).'),
        );
        return;
      }
      const record: AuditRecord = {
        ...base,
        event: AUDIT_EVENTS.reveal,
        login,
        label: item.label,
        requestId: granted?.requestId,
        decidedBy: granted?.decidedBy,
        readAs: granted?.readAs,
      };
      await deps.audit.record({ ...record, outcome: 'attempt' });
      const delivery = deliver(deps, args, item);
      deps.deliveries.add(delivery);
      let outcome = 'shown';
      try {
        await delivery;
      } catch (error) {
        outcome = 'delivery_failed';
        deps.logger.warn(
          { itemId: item.id, ...errorFields(error, deps.redact) },
          'could not deliver a reveal',
        );
      } finally {
        deps.deliveries.delete(delivery);
      }
      await deps.audit.record({ ...record, outcome });
      if (outcome === 'shown')
        await deps.db.query('INSERT INTO reveals (slack_user, item_id, label, at) VALUES ($1, $2, $3, $4)', [
          caller.slackUser,
          item.id,
          item.label,
          Date.now(),
        ]);
    });
  };
}

/**
 * Reads the item an approved request grants, at reveal time: with the bot's key where it reads
 * everything, else with the approving person's own linked account (they must still be linked and
 * able to read it: the vault decides). Never the requester's.
 *
 * @returns The item, and whose account read it; or why it could not be read (for the audit only).
 */
async function readGranted(
  deps: Deps,
  grant: AccessRequest,
  id: number,
): Promise<{ item: Item | undefined; readAs: string | undefined; refusal: string }> {
  if (deps.accounts.shared) {
    const item = await readItemOrNone(deps.accounts.shared, id);
    return { item, readAs: undefined, refusal: 'no_access' };
  }
  if (grant.decidedBy === undefined) return { item: undefined, readAs: undefined, refusal: 'no_approver' };
  try {
    const used = await deps.accounts.use(grant.decidedBy, deps.slack(), ({ vault }) =>
      readItemOrNone(vault, id),
    );
    if (!used.ok) return { item: undefined, readAs: used.login, refusal: 'approver_unlinked' };
    return { item: used.value, readAs: used.login, refusal: 'approver_cannot_read' };
  } catch (error) {
    // The approver's own account was refused: theirs to fix; the requester hears the same.
    if (isVaultError(error, 'unauthorized') || isVaultError(error, 'forbidden')) {
      deps.logger.warn(
        errorFields(error, deps.redact),
        'the approver’s linked account could not read a granted item',
      );
      return { item: undefined, readAs: undefined, refusal: 'approver_refused' };
    }
    throw error;
  }
}

async function deliver(deps: Deps, args: ButtonArgs, item: Item & { access: string }): Promise<void> {
  const listed = toListed(item, item.access);
  const delayMs = deps.config.revealSeconds * 1000;
  const responseUrl = responseUrlOf(args);
  if (deps.config.revealMode === 'ephemeral' && responseUrl) {
    // The redaction is in the store before the password leaves: a crash after the post still
    // hides it, from this instance after a restart or from another one.
    await deps.redactions.schedule(
      { kind: 'response', target: responseUrl, message: { ...redacted(listed) } },
      delayMs,
    );
    await args.respond(revealed(listed, item.password, deps.config.revealSeconds));
    return;
  }
  // A modal: from a message, a new one; from a modal (the search shortcut), one pushed on top. It
  // opens without the password: its redaction is in the store before the password is sent.
  const placeholder = { ...revealingModal(listed), external_id: deps.views.tag(args.body.user.id) };
  const fromView = args.body.container?.type === 'view';
  const opened = fromView
    ? await args.client.views.push({ trigger_id: args.body.trigger_id, view: placeholder })
    : await args.client.views.open({ trigger_id: args.body.trigger_id, view: placeholder });
  const viewId = opened.view?.id;
  if (!viewId) throw new Error('Slack opened the reveal’s modal without giving its id');
  await deps.redactions.schedule(
    { kind: 'view', target: viewId, message: { ...redactedModal(listed) } },
    delayMs,
  );
  await args.client.views.update({
    view_id: viewId,
    view: revealedModal(listed, item.password, deps.config.revealSeconds),
  });
}
