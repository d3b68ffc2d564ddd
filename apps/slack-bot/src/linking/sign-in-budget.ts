import { AUDIT_EVENTS, ENV } from '../constants.ts';
import type { Deps } from '../deps.ts';
import type { SignInPause } from '../limits.ts';
import { errorFields } from '../safe-error.ts';
import { expand } from '../user-groups.ts';

/** A wait, in words: minutes up to two hours, then hours. */
function waitText(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return minutes <= 120 ? `${minutes} min` : `${Math.ceil(minutes / 60)} h`;
}

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
      return `TeamPass has locked sign-ins through the bot for a while, after too many failed sign-ins. Nothing was tried. Please try again in ${waitText(seconds)}; the bot’s link admins are told.`;
    case 'budget_spent':
      return `The bot has had too many failed TeamPass sign-ins today, so it tries no new link for now (more would make TeamPass lock everyone out). Please try again in ${waitText(seconds)}; the bot’s link admins are told.`;
    case 'login_capped':
      return `Too many failed attempts to link this TeamPass login today. Please try again in ${waitText(seconds)}, or ask a TeamPass admin.`;
  }
}

/**
 * Tells the bot's link admins (by DM) that link attempts are paused, and audits it. Best effort:
 * a failure is logged.
 *
 * @param deps The settings, the Slack client and the logger.
 * @param audit The audit log.
 * @param pause Why.
 * @param seconds For how long.
 */
export async function tellLinkAdmins(
  deps: Pick<Deps, 'config' | 'slack' | 'logger' | 'redact'>,
  audit: Deps['audit'],
  pause: SignInPause,
  seconds: number,
): Promise<void> {
  await audit.record({
    event: AUDIT_EVENTS.signInsPaused,
    slackUser: '',
    slackTeam: undefined,
    login: undefined,
    channel: undefined,
    outcome: pause,
  });
  const text =
    pause === 'vault_locked'
      ? `TeamPass locked sign-ins through the bot (“Account temporarily locked”), after too many failed sign-ins from the bot’s address or of one login. Links are kept; link attempts wait ${waitText(seconds)} (${ENV.signInLockSeconds}). If nobody expected failed sign-ins, look at the audit’s ${AUDIT_EVENTS.linkFailed} records.`
      : pause === 'budget_spent'
        ? `The bot spent its budget of failed TeamPass sign-ins (${deps.config.failedSignInsPerDay} per 24 h, ${ENV.failedSignInsPerDay}): it tries no new link for ${waitText(seconds)}, so that TeamPass does not lock the bot’s address for everyone. Look at the audit’s ${AUDIT_EVENTS.linkFailed} records for who tried.`
        : `Link attempts at one TeamPass login failed ${deps.config.failedSignInsPerLogin} times in 24 h (${ENV.failedSignInsPerLogin}): the bot tries that login no more for ${waitText(seconds)}. Look at the audit’s ${AUDIT_EVENTS.linkFailed} records for who tried.`;
  try {
    const client = deps.slack();
    for (const admin of await expand(deps, deps.config.linkAdmins))
      await client.chat.postMessage({ channel: admin, text, unfurl_links: false, unfurl_media: false });
  } catch (error) {
    deps.logger.warn(errorFields(error, deps.redact), 'could not tell the link admins');
  }
}
