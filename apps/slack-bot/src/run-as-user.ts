import type { AllMiddlewareArgs, RespondFn, SlackCommandMiddlewareArgs, webApi } from '@slack/bolt';
import { isVaultError } from '@vaultline/protocol';
import type { AuditRecord } from './audit.ts';
import { note } from './blocks.ts';
import type { Deps } from './deps.ts';
import { friendlyMessage } from './error-messages.ts';
import { IDENTITY_MESSAGES, UNKNOWN_LOGIN_MESSAGE } from './identity.ts';
import { errorFields } from './safe-error.ts';

/** Who asked, and where. */
export interface Caller {
  slackUser: string;
  slackTeam: string | undefined;
  channel: string | undefined;
  client: webApi.WebClient;
  respond: RespondFn;
}

/**
 * Who did something, as every audit record names them.
 *
 * @param caller The caller.
 * @param login Their vault login, when known.
 * @returns The audit record's who-and-where fields.
 */
export function auditWho(
  caller: Caller,
  login: string | undefined,
): Pick<AuditRecord, 'slackUser' | 'slackTeam' | 'login' | 'channel'> {
  return { slackUser: caller.slackUser, slackTeam: caller.slackTeam, login, channel: caller.channel };
}

/**
 * The caller of a slash command.
 *
 * @param args The command's middleware arguments.
 * @returns Who asked, where, and how to answer them.
 */
export function commandCaller({
  command,
  client,
  respond,
}: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Caller {
  return {
    slackUser: command.user_id,
    slackTeam: command.team_id,
    channel: command.channel_id,
    client,
    respond,
  };
}

/**
 * Runs a piece of work as the caller's vault user: resolves the identity (a person with none is
 * told so and gets nothing), and turns any failure into a short message for them and a redacted
 * log line.
 *
 * @param deps The bot's parts.
 * @param caller Who asked.
 * @param event The audit event recorded when the caller has no identity.
 * @param work The work, given the vault login.
 */
export async function runAsUser(
  deps: Deps,
  caller: Caller,
  event: AuditRecord['event'],
  work: (login: string) => Promise<void>,
): Promise<void> {
  // Acks still arriving go out before this work (Slack drops a command not acked within 3 s).
  await deps.ackFirst.quiet();
  await deps.afterAck(() => runResolved(deps, caller, event, work));
}

async function runResolved(
  deps: Deps,
  caller: Caller,
  event: AuditRecord['event'],
  work: (login: string) => Promise<void>,
): Promise<void> {
  let login: string | undefined;
  try {
    const identity = await deps.identity.resolve(caller.slackUser, caller.client);
    if (!identity.ok) {
      await deps.audit.record({ event, ...auditWho(caller, undefined), outcome: identity.reason });
      await caller.respond(note(IDENTITY_MESSAGES[identity.reason]));
      return;
    }
    login = identity.login;
    await work(login);
  } catch (error) {
    const fields = errorFields(error, deps.redact);
    deps.logger.warn({ event, slackUser: caller.slackUser, login, ...fields }, 'request failed');
    // A failure is audited too: what was tried, by whom, and how it ended (the code, no text).
    await deps.audit.record({ event, ...auditWho(caller, login), outcome: `error:${fields.code}` });
    try {
      const unknownLogin =
        isVaultError(error, 'not_found') &&
        (error.endpoint === 'readUserFolders' || error.endpoint === 'readUserItems');
      await caller.respond(note(unknownLogin ? UNKNOWN_LOGIN_MESSAGE : friendlyMessage(error)));
    } catch (respondError) {
      deps.logger.warn(errorFields(respondError, deps.redact), 'could not tell the user');
    }
  }
}
