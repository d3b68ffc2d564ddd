import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '@slack/bolt';
import type { Database } from '@vaultline/store';
import type { Deps } from '../deps.ts';
import type { SeenSignatures } from '../store/seen-signatures.ts';
import type { ServedTeams } from './served-teams.ts';
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
 * Starts the bot: settles the workspaces it serves, starts the sweeper, then the receiver (HTTP:
 * listening; Socket Mode: connected).
 *
 * @param parts The bot.
 * @returns The HTTP port in HTTP mode.
 */
export async function startBot({
  app,
  deps,
  sweeper,
  teams,
}: LifecycleParts): Promise<{ port: number | undefined }> {
  const { config, logger } = deps;
  await teams.resolve(app.client, logger);
  sweeper.start();
  if (config.mode === 'socket') {
    await app.start();
    logger.info({ mode: 'socket' }, 'connected to Slack');
    return { port: undefined };
  }
  const server = (await app.start({ port: config.port, host: config.host })) as Server;
  const port = (server.address() as AddressInfo).port;
  logger.info({ mode: 'http', host: config.host, port }, 'listening');
  return { port };
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
