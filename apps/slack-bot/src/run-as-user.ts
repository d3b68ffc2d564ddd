import type { AllMiddlewareArgs, RespondFn, SlackCommandMiddlewareArgs, webApi } from '@slack/bolt';
import { isVaultError } from '@vaultline/protocol';
import type { AuditRecord } from './audit.ts';
import { note } from './blocks.ts';
import type { Deps } from './deps.ts';
import { friendlyMessage } from './error-messages.ts';
import { UNKNOWN_LOGIN_MESSAGE } from './identity.ts';
import { accountProblem } from './linking/account-messages.ts';
import type { Account } from './linking/accounts.ts';
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
 * Runs a piece of work as the caller's vault account (the bot's key for their mapped login, or
 * their own linked account): a person with none is told how to get one (linking, or an admin) and
 * gets nothing; any failure becomes a short message for them and a redacted log line.
 *
 * @param deps The bot's parts.
 * @param caller Who asked.
 * @param event The audit event recorded when the caller has no account.
 * @param work The work, given the account (its `login`, and the client, checker and search to use).
 */
export async function runAsUser(
  deps: Deps,
  caller: Caller,
  event: AuditRecord['event'],
  work: (account: Account) => Promise<void>,
): Promise<void> {
  // Acks still arriving go out before this work (Slack drops a command not acked within 3 s).
  await deps.ackFirst.quiet();
  await deps.afterAck(() => runResolved(deps, caller, event, work));
}

async function runResolved(
  deps: Deps,
  caller: Caller,
  event: AuditRecord['event'],
  work: (account: Account) => Promise<void>,
): Promise<void> {
  let login: string | undefined;
  let linked = false;
  try {
    const used = await deps.accounts.use(caller.slackUser, caller.client, (account) => {
      login = account.login;
      linked = account.linked;
      return work(account);
    });
    if (!used.ok) {
      await deps.audit.record({ event, ...auditWho(caller, used.login), outcome: used.reason });
      await caller.respond(accountProblem(used.reason));
      return;
    }
  } catch (error) {
    const fields = errorFields(error, deps.redact);
    deps.logger.warn({ event, slackUser: caller.slackUser, login, ...fields }, 'request failed');
    // A failure is audited too: what was tried, by whom, and how it ended (the code, no text).
    await deps.audit.record({ event, ...auditWho(caller, login), outcome: `error:${fields.code}` });
    try {
      const unknownLogin = isVaultError(error, 'not_found') && error.endpoint === 'readUserFolders';
      await caller.respond(
        linked && isVaultError(error, 'unauthorized') && error.reason !== 'sign_in_locked'
          ? accountProblem('link_refused')
          : note(unknownLogin ? UNKNOWN_LOGIN_MESSAGE : friendlyMessage(error, linked)),
      );
    } catch (respondError) {
      deps.logger.warn(errorFields(respondError, deps.redact), 'could not tell the user');
    }
  }
}
