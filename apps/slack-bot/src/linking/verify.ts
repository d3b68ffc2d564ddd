import { randomUUID } from 'node:crypto';
import type { types, webApi } from '@slack/bolt';
import { isVaultError, secretsOf } from '@vaultline/protocol';
import { publishHome } from '../bot/home.ts';
import { AUDIT_EVENTS, COMMAND } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { friendlyMessage, UNEXPECTED_ERROR_MESSAGE } from '../error-messages.ts';
import { escapeText } from '../escape.ts';
import { errorFields } from '../safe-error.ts';
import { type LinkCredentials, METHOD_WORDS } from './links.ts';
import { linkModal, statusModal } from './modal.ts';
import { pauseText, tellLinkAdmins } from './sign-in-budget.ts';

/** What a failed link attempt is told: why, in words for the person, never the vault's own text. */
function linkProblem(error: unknown): string {
  if (!isVaultError(error)) return UNEXPECTED_ERROR_MESSAGE;
  switch (error.code) {
    case 'unauthorized':
      return 'TeamPass refused the sign-in: check the login and the password and API key (or the token). TeamPass answers the same way when the account’s API access is switched off.';
    case 'api_disabled':
      return 'TeamPass refused: its API is switched off, or it does not accept personal access tokens. Link with your password and API key, or ask a TeamPass admin.';
    case 'forbidden':
      return 'TeamPass refused the request (it may require HTTPS, or not allow the bot’s address). Please tell a TeamPass admin.';
    default:
      return friendlyMessage(error, true);
  }
}

/** The answer to a read permission that is off: the account could read nothing through the bot. */
const READ_OFF =
  'Your TeamPass account may not read through the API (its API “read” permission is off), so the bot could show you nothing. Ask a TeamPass admin to allow it, then link again.';

/** A login as a login box should hold it: no spaces, no symbols a password would have. */
const LOGIN_SHAPE = /^[\p{L}\p{N}._@+-]{1,100}$/u;

/**
 * Checks what a person gave by signing in to the vault with it, and keeps it (sealed) when the
 * vault took it: the session token of that sign-in is kept too, so the next command signs in no
 * more. The modal is updated with the outcome; a failure shows the form again, with the login
 * only when it looks like one (a password typed into the login box is not shown back). Only a
 * login the vault confirmed is audited or posted. Each attempt reserves one failure of the bot's
 * budget of failed sign-ins (and of the member's and the login's), given back when the vault
 * signed in or said the login is locked: what TeamPass counts stays counted.
 */
export async function verifyAndLink(
  deps: Deps,
  who: { user: string; team: string | undefined; client: webApi.WebClient; externalId: string },
  credentials: LinkCredentials,
): Promise<void> {
  const linking = deps.linking;
  if (!linking) return;
  // What was typed into the login box is not a login until the vault says so: never audited.
  const login = credentials.login;
  // Its keyed reference names the login targeted in the audit and the admins' messages.
  const target = linking.signIns.loginRef(login);
  const base = { slackUser: who.user, slackTeam: who.team, channel: undefined, login: undefined, target };
  const method = credentials.kind;
  const secrets = secretsOf(credentials);
  const typedSecrets = secrets.map((value) => value.trim());
  const refill = LOGIN_SHAPE.test(login) && !typedSecrets.includes(login) ? login : undefined;
  const show = (view: types.ModalView) =>
    who.client.views
      .update({ external_id: who.externalId, view })
      .catch((error: unknown) =>
        deps.logger.warn(errorFields(error, deps.redact), 'could not update the link form'),
      );
  const again = (problem: string) =>
    show(linkModal(deps.config.linkCredentials, who.externalId, { problem, login: refill }));

  const limit = await linking.attempts.hit(who.user);
  if (!limit.allowed) {
    await deps.audit.record({ event: AUDIT_EVENTS.linkFailed, ...base, outcome: 'rate_limited' });
    await again(
      `Too many link attempts in a short time. Please try again in ${Math.max(1, Math.ceil(limit.retryAfterSeconds / 60))} min.`,
    );
    return;
  }
  const reserved = await linking.signIns.reserve(who.user, login).catch((error: unknown) => {
    deps.logger.warn(errorFields(error, deps.redact), 'could not count a link attempt in the store');
    return undefined;
  });
  if (!reserved) {
    // Without the count, no sign-in: an attempt the budget cannot see could lock the address.
    await deps.audit.record({ event: AUDIT_EVENTS.linkFailed, ...base, outcome: 'error:store' });
    await again(UNEXPECTED_ERROR_MESSAGE);
    return;
  }
  if (!reserved.ok) {
    await deps.audit.record({ event: AUDIT_EVENTS.linkFailed, ...base, outcome: `paused:${reserved.pause}` });
    // A lock was told when it was heard of.
    if (
      reserved.pause !== 'vault_locked' &&
      (await linking.signIns.firstNotice(reserved.pause, who.user, login).catch(() => false))
    )
      await tellLinkAdmins(deps, deps.audit, reserved.pause, reserved.retryAfterSeconds, {
        member: who.user,
        loginRef: target,
      });
    await again(pauseText(reserved.pause, reserved.retryAfterSeconds));
    return;
  }
  // The attempt's secrets, and the login typed (it may be a password typed in the wrong box), are
  // redacted from every log line while they are held.
  const held = `link-attempt:${who.user}:${randomUUID()}`;
  deps.secrets.hold(held, [...secrets, ...([...login].length >= 3 ? [login] : [])]);
  let token: string | undefined;
  const client = linking.connect(credentials, {
    get: () => undefined,
    set: (next) => {
      token = next;
    },
  });
  try {
    const identity = await client.identity();
    // A count the store could not give back errs on the safe side: the link goes on.
    await reserved.ticket
      .settle('signed_in')
      .catch((settleError: unknown) =>
        deps.logger.warn(errorFields(settleError, deps.redact), 'could not count a link attempt'),
      );
    // The vault confirmed the login: it is no secret any more.
    deps.secrets.hold(held, secrets);
    const linkedLogin = identity.login ?? login;
    if (identity.api?.read === false) {
      await client.dispose();
      await deps.audit.record({
        event: AUDIT_EVENTS.linkFailed,
        ...base,
        login: linkedLogin,
        outcome: 'api_read_off',
      });
      await again(READ_OFF);
      return;
    }
    // An earlier link goes first, and its session is signed out.
    const previous = await deps.accounts.unlink(who.user);
    await linking.links.save({
      slackUser: who.user,
      slackTeam: who.team,
      credentials: { ...credentials, login: linkedLogin },
      token,
    });
    deps.accounts.forget(who.user);
    // The token stays in the store for the person's client: no sign-out.
    await client.dispose({ signOut: false });
    await deps.audit.record({
      event: AUDIT_EVENTS.accountLinked,
      ...base,
      login: linkedLogin,
      outcome: `${previous ? 'relinked' : 'linked'}:${METHOD_WORDS[method]}`,
    });
    await show(
      statusModal(
        `Linked to the TeamPass account ${escapeText(linkedLogin, 80)}. You can close this window: ${COMMAND} find and the Home tab now show what it may read.`,
        who.externalId,
      ),
    );
    await publishHome(deps, who.user, who.client);
  } catch (error) {
    // TeamPass counts no failure for a sign-in it said was locked; a refusal, and a sign-in that
    // got no answer (it may have been refused after the bot stopped waiting), stay counted.
    const locked = isVaultError(error, 'unauthorized') && error.reason === 'sign_in_locked';
    await reserved.ticket
      .settle(locked ? 'locked' : 'failed')
      .catch((settleError: unknown) =>
        deps.logger.warn(errorFields(settleError, deps.redact), 'could not count a link attempt'),
      );
    const fields = errorFields(error, deps.redact);
    deps.logger.warn({ slackUser: who.user, ...fields }, 'a link attempt failed');
    await client.dispose({ signOut: false }).catch(() => undefined);
    if (locked) {
      await deps.audit.record({ event: AUDIT_EVENTS.linkFailed, ...base, outcome: 'vault_locked' });
      const lock = await linking.signIns
        .locked(login)
        .catch(() => ({ retryAfterSeconds: deps.config.signInLockSeconds, first: false }));
      if (lock.first)
        await tellLinkAdmins(deps, deps.audit, 'vault_locked', lock.retryAfterSeconds, {
          member: who.user,
          loginRef: target,
        });
      await again(pauseText('vault_locked', lock.retryAfterSeconds));
      return;
    }
    await deps.audit.record({ event: AUDIT_EVENTS.linkFailed, ...base, outcome: `error:${fields.code}` });
    await again(linkProblem(error));
  } finally {
    deps.secrets.release(held);
  }
}
