import { AUDIT_EVENTS, COMMAND, ENV } from '../constants.ts';
import type { Deps } from '../deps.ts';
import type { SignInPause } from '../limits.ts';
import { errorFields } from '../safe-error.ts';
import { expand } from '../user-groups.ts';

/** A wait, in words: minutes up to two hours, then hours. */
function waitText(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return minutes <= 120 ? `${minutes} min` : `${Math.ceil(minutes / 60)} h`;
}

/** How a link admin lifts a member's block. */
const LIFT = `${COMMAND} unblock <member ID>`;

/**
 * What a person is told when no sign-in was tried for their link, and why.
 *
 * @param pause Why no sign-in was tried.
 * @param seconds For how long.
 * @returns The text.
 */
export function pauseText(pause: SignInPause, seconds: number): string {
  switch (pause) {
    case 'vault_locked':
      return `TeamPass has locked sign-ins of this login for a while, after too many failed sign-ins. Nothing was tried. Please try again in ${waitText(seconds)}; the bot’s link admins are told.`;
    case 'budget_spent':
      return `The bot has had too many failed TeamPass sign-ins today, so it tries no new link for now (more would make TeamPass lock everyone out). Please try again in ${waitText(seconds)}; the bot’s link admins are told.`;
    case 'login_capped':
      return `Too many failed attempts to link this TeamPass login today. Please try again in ${waitText(seconds)}, or ask one of the bot’s link admins to lift the block (${LIFT}).`;
    case 'member_capped':
      return `You have had too many failed link attempts today. Please try again in ${waitText(seconds)}, or ask one of the bot’s link admins to lift the block (${LIFT}).`;
  }
}

/** Whom a pause is about: the member who met it, and the login's reference (`login#…`). */
export interface PauseSubject {
  member: string;
  loginRef: string;
}

/**
 * Tells the bot's link admins (by DM) that link attempts are paused, and audits it. Best effort:
 * a failure is logged.
 *
 * @param deps The settings, the Slack client and the logger.
 * @param audit The audit log.
 * @param pause Why.
 * @param seconds For how long.
 * @param subject The member and the login it is about.
 */
export async function tellLinkAdmins(
  deps: Pick<Deps, 'config' | 'slack' | 'logger' | 'redact'>,
  audit: Deps['audit'],
  pause: SignInPause,
  seconds: number,
  subject: PauseSubject,
): Promise<void> {
  await audit.record({
    event: AUDIT_EVENTS.signInsPaused,
    slackUser: subject.member,
    slackTeam: undefined,
    login: undefined,
    target: subject.loginRef,
    channel: undefined,
    outcome: pause,
  });
  const records = `the audit’s ${AUDIT_EVENTS.linkFailed} records with target ${subject.loginRef}`;
  const text = ((): string => {
    switch (pause) {
      case 'vault_locked':
        return `TeamPass locked sign-ins of the login ${subject.loginRef} (“Account temporarily locked”), after too many failed sign-ins of that login or from the bot’s address; ${subject.member} met the lock. Links are kept; attempts at that login wait ${waitText(seconds)} (${ENV.signInLockSeconds}). If nobody expected failed sign-ins, look at ${records}.`;
      case 'budget_spent':
        return `The bot spent its budget of failed TeamPass sign-ins (${deps.config.failedSignInsPerDay} in 24 h, ${ENV.failedSignInsPerDay}): it tries no new link for ${waitText(seconds)}, so that TeamPass does not lock the bot’s address for everyone. Look at the audit’s ${AUDIT_EVENTS.linkFailed} records for who tried; ${LIFT} lifts one member’s block, not this budget.`;
      case 'login_capped':
        return `Link attempts at the login ${subject.loginRef} failed ${deps.config.failedSignInsPerLogin} times in 24 h (${ENV.failedSignInsPerLogin}): the bot tries that login no more for ${waitText(seconds)}; ${subject.member} was kept from it. Look at ${records} for who tried; if ${subject.member} owns that login, ${COMMAND} unblock ${subject.member} lets them try again.`;
      case 'member_capped':
        return `${subject.member} failed ${deps.config.failedSignInsPerMember} link attempts in 24 h (${ENV.failedSignInsPerMember}): the bot tries none of theirs for ${waitText(seconds)}. ${COMMAND} unblock ${subject.member} lifts it.`;
    }
  })();
  try {
    const client = deps.slack();
    for (const admin of await expand(deps, deps.config.linkAdmins))
      await client.chat.postMessage({ channel: admin, text, unfurl_links: false, unfurl_media: false });
  } catch (error) {
    deps.logger.warn(errorFields(error, deps.redact), 'could not tell the link admins');
  }
}
