import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '@slack/bolt';
import type { Database } from '@vaultline/store';
import { ENV } from '../constants.ts';
import type { Deps } from '../deps.ts';
import type { SeenSignatures } from '../store/seen-signatures.ts';
import { type ServedTeams, StartupError } from './served-teams.ts';
import type { Sweeper } from './sweeper.ts';

/** What starting and stopping a bot involves besides its parts. */
export interface LifecycleParts {
  app: App;
  deps: Deps;
  sweeper: Sweeper;
  seen: SeenSignatures;
  /** The store itself (not the after-acks view of it): closed last. */
  db: Database;
  /** The workspaces served: settled before the receiver starts. */
  teams: ServedTeams;
}

/**
 * Starts the bot: settles the workspaces it serves, lets Bolt check the token and read the bot's
 * identity once (`auth.test`, kept for every request), starts the sweeper, then the receiver
 * (HTTP: listening; Socket Mode: connected).
 *
 * @param parts The bot.
 * @returns The HTTP port in HTTP mode.
 * @throws {StartupError} When Slack cannot say which workspace installed the bot, or refuses the
 *   bot token.
 */
export async function startBot({
  app,
  deps,
  sweeper,
  teams,
}: LifecycleParts): Promise<{ port: number | undefined }> {
  const { config, logger } = deps;
  await teams.resolve(app.client, logger);
  await initBolt(app);
  sweeper.start();
  if (config.mode === 'socket') {
    await app.start();
    logger.info({ mode: 'socket' }, 'connected to Slack');
    return { port: undefined };
  }
  const server = (await app.start({ port: config.port, host: config.host }).catch((error: unknown) => {
    throw listenError(error, config.host, config.port);
  })) as Server;
  const port = (server.address() as AddressInfo).port;
  logger.info({ mode: 'http', host: config.host, port }, 'listening');
  return { port };
}

/**
 * Runs Bolt's deferred initialisation: one `auth.test` that checks the token and gives the bot id
 * and user id Bolt then uses for every request.
 *
 * @param app The Bolt app, built with `deferInitialization`.
 * @throws {StartupError} When it fails, saying what Slack answered (never the token).
 */
async function initBolt(app: App): Promise<void> {
  try {
    await app.init();
  } catch (error) {
    // Slack's own error code (invalid_auth, token_revoked, …) when it answered; nothing else of
    // the error, which is the Web API client's.
    const code = (error as { data?: { error?: unknown } }).data?.error;
    throw new StartupError(
      typeof code === 'string'
        ? `Slack refused the bot token (auth.test: ${code}); check ${ENV.botToken} (and ${ENV.slackApiUrl} when set)`
        : `could not check the bot token with Slack (auth.test failed); check ${ENV.slackApiUrl} when set, and that Slack can be reached`,
    );
  }
}

/**
 * Stops the bot: every password it still shows is hidden, the queued audit posts are sent (at most
 * 5 s), the receiver stops, linked accounts' clients are let go, and what is kept in memory is
 * written to the store before it closes.
 *
 * @param parts The bot.
 */
export async function stopBot({ app, deps, sweeper, seen, db }: LifecycleParts): Promise<void> {
  sweeper.stop();
  await Promise.allSettled([...deps.deliveries]);
  await deps.redactions.flush();
  await deps.audit.flush(5000);
  await app.stop().catch(() => undefined);
  await sweeper.idle();
  // Linked accounts' clients go without signing out: their tokens stay (sealed) for the next start.
  await deps.accounts.close();
  // The command counts not yet in the store, so that a restart still knows them.
  await deps.commandLimiter.close();
  await seen.flush();
  await db.close();
}

/** Why the bot could not listen, in words for the operator: the address, the port and the cause. */
function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as { code?: unknown } | undefined)?.code;
  const causes: Record<string, string> = {
    EADDRINUSE: 'the port is already in use',
    EACCES: 'the port needs privileges the bot does not have',
    EADDRNOTAVAIL: 'the address is not one of this machine’s',
  };
  if (typeof code !== 'string' || !(code in causes)) return error;
  return new StartupError(
    `could not listen on ${host}:${port}: ${causes[code]} (${code}); set ${ENV.port} or ${ENV.host}`,
    { cause: error },
  );
}
