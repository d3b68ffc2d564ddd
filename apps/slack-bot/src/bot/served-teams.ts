import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { ENV } from '../constants.ts';

/** A problem that stops the bot at start, in words for the operator (never a secret). */
export class StartupError extends Error {
  override name = 'StartupError';
  readonly code = 'startup_failed';
}

/** The workspaces whose requests are served (HTTP mode checks each request against them). */
export interface ServedTeams {
  /** The team ids; none before {@link ServedTeams.resolve} (nothing is served then). */
  list(): readonly string[];
  /**
   * Settles the list at start: `SLACK_TEAM_IDS` when set, else the workspace that installed the
   * bot (`auth.test`), and says which in the log.
   *
   * @param client The bot's Web API client.
   * @param logger The bot's logger.
   * @throws {StartupError} When the installing workspace cannot be read.
   */
  resolve(client: webApi.WebClient, logger: Logger): Promise<void>;
}

/**
 * Creates the list of served workspaces.
 *
 * @param configured `SLACK_TEAM_IDS`, or undefined for the installing workspace.
 * @returns It, to be resolved at start.
 */
export function createServedTeams(configured: readonly string[] | undefined): ServedTeams {
  let teams: readonly string[] = [];
  return {
    list: () => teams,
    async resolve(client, logger) {
      if (configured) {
        teams = configured;
        logger.info({ teams }, `serving the workspaces ${ENV.teamIds} lists`);
        return;
      }
      let team: string | undefined;
      try {
        team = (await client.auth.test()).team_id;
      } catch (error) {
        const code = (error as { data?: { error?: unknown } }).data?.error;
        throw new StartupError(
          `could not ask Slack which workspace installed the bot (auth.test${typeof code === 'string' ? `: ${code}` : ' failed'}); set ${ENV.teamIds} to the workspaces to serve`,
        );
      }
      if (!team)
        throw new StartupError(
          `Slack did not say which workspace installed the bot (auth.test); set ${ENV.teamIds} to the workspaces to serve`,
        );
      teams = [team];
      logger.info(
        { teams },
        `${ENV.teamIds} is not set: serving only the workspace that installed the bot (${team}, from auth.test)`,
      );
    },
  };
}
