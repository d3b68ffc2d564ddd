import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  App,
  type BlockAction,
  type ButtonAction,
  HTTPReceiver,
  type Receiver,
  SocketModeReceiver,
} from '@slack/bolt';
import { createAccessChecker, createVaultClient } from '@vaultline/protocol';
import pLimit from 'p-limit';
import type { DestinationStream } from 'pino';
import { createAckFirst } from './ack-first.ts';
import { openUrlAction } from './actions/open-url.ts';
import { pageAction } from './actions/page.ts';
import { revealAction } from './actions/reveal.ts';
import { showLoginAction } from './actions/show-login.ts';
import { createAuditLog } from './audit.ts';
import { vaultCommand } from './commands/vault.ts';
import {
  ACK_MAX_DEFER_MS,
  ACK_QUIET_MS,
  ACTIONS,
  AFTER_ACK_CONCURRENCY,
  COMMAND,
  EVENTS_PATH,
  HEALTH_PATH,
  MAX_REQUEST_BYTES,
} from './constants.ts';
import type { Deps } from './deps.ts';
import type { Config } from './env.ts';
import { createIdentityResolver } from './identity.ts';
import { createLogger } from './logger.ts';
import { createRedactionTimers } from './redaction-timers.ts';
import { createRevealLimiter } from './reveal-limiter.ts';
import { createItemSearch } from './search.ts';

/** Options of {@link createBot} beyond the configuration. */
export interface BotOptions {
  /** Where log lines go; stdout by default. */
  logDestination?: DestinationStream | undefined;
  /** The `fetch` the vault client uses. */
  fetch?: typeof globalThis.fetch | undefined;
}

/** A built bot. */
export interface Bot {
  /** The Bolt app. */
  readonly app: App;
  /** Its parts. */
  readonly deps: Deps;
  /**
   * Starts listening (HTTP mode) or connecting (Socket Mode).
   *
   * @returns The HTTP port in HTTP mode.
   */
  start(): Promise<{ port: number | undefined }>;
  /** Hides every password still on screen, then stops. */
  stop(): Promise<void>;
}

/**
 * Builds the Bolt app and registers its command and actions.
 *
 * @param config The validated settings.
 * @param options Log destination and fetch, for tests.
 * @returns The bot, not started.
 */
export async function createBot(config: Config, options: BotOptions = {}): Promise<Bot> {
  const { log, bolt } = createLogger(
    config.logLevel,
    [config.vaultApiKey, config.botToken, config.signingSecret, config.appToken],
    options.logDestination,
  );
  const vault = createVaultClient({
    baseUrl: config.vaultUrl,
    apiKey: config.vaultApiKey,
    timeoutMs: config.vaultTimeoutMs,
    fetch: options.fetch,
    retries: 1,
  });
  const access = createAccessChecker(vault, {
    ttlMs: config.accessCacheSeconds * 1000,
    // Folder rights decide; the user's item list would carry every password they may see.
    itemList: false,
  });
  const deps: Deps = {
    config,
    vault,
    access,
    search: createItemSearch(vault, access),
    identity: await createIdentityResolver(config.identity),
    audit: createAuditLog({ file: config.auditFile, channel: config.auditChannel, logger: log }),
    limiter: createRevealLimiter(config.revealLimit, config.revealWindowSeconds),
    timers: createRedactionTimers((error) =>
      log.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'could not hide a revealed password',
      ),
    ),
    logger: log,
    afterAck: pLimit(AFTER_ACK_CONCURRENCY),
    ackFirst: createAckFirst(ACK_QUIET_MS, ACK_MAX_DEFER_MS),
  };

  const clientOptions = config.slackApiUrl ? { slackApiUrl: config.slackApiUrl } : {};
  const receiver: Receiver =
    config.mode === 'socket'
      ? new SocketModeReceiver({
          appToken: config.appToken,
          logger: bolt,
          installerOptions: { clientOptions },
        })
      : new HTTPReceiver({
          signingSecret: config.signingSecret,
          endpoints: EVENTS_PATH,
          bodyLimit: MAX_REQUEST_BYTES,
          logger: bolt,
          customRoutes: [
            {
              path: HEALTH_PATH,
              method: 'GET',
              handler: (_req, res) => {
                res.writeHead(200, { 'content-type': 'text/plain' });
                res.end('ok');
              },
            },
          ],
        });
  const app = new App({ token: config.botToken, receiver, logger: bolt, clientOptions });

  app.use(async ({ next }) => {
    deps.ackFirst.mark();
    await next();
  });
  app.command(COMMAND, vaultCommand(deps));
  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: ACTIONS.reveal },
    revealAction(deps),
  );
  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: ACTIONS.showLogin },
    showLoginAction(deps),
  );
  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: ACTIONS.openUrl },
    openUrlAction(),
  );
  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: new RegExp(`^${ACTIONS.page}_`) },
    pageAction(deps),
  );
  app.error(async (error) => {
    log.error({ code: error.code, err: `${error.name}: ${error.message}` }, 'unhandled error in a listener');
  });

  return {
    app,
    deps,
    async start() {
      if (config.mode === 'socket') {
        await app.start();
        log.info({ mode: 'socket' }, 'connected to Slack');
        return { port: undefined };
      }
      const server = (await app.start({ port: config.port, host: config.host })) as Server;
      const port = (server.address() as AddressInfo).port;
      log.info({ mode: 'http', host: config.host, port }, 'listening');
      return { port };
    },
    async stop() {
      await deps.timers.flush();
      await app.stop();
    },
  };
}
