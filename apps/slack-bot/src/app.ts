import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AllMiddlewareArgs,
  type AnyMiddlewareArgs,
  App,
  type BlockAction,
  type ButtonAction,
  type Receiver,
  SocketModeReceiver,
} from '@slack/bolt';
import { createAccessChecker, createVaultClient } from '@vaultline/protocol';
import pLimit from 'p-limit';
import type { DestinationStream } from 'pino';
import { createAccessRequests } from './access-requests.ts';
import { type AckFirst, createAckFirst } from './ack-first.ts';
import { openUrlAction } from './actions/open-url.ts';
import { pageAction } from './actions/page.ts';
import { revealAction } from './actions/reveal.ts';
import { showLoginAction } from './actions/show-login.ts';
import { createAuditLog } from './audit.ts';
import { note } from './blocks.ts';
import { vaultCommand } from './commands/vault.ts';
import {
  ACK_MAX_DEFER_MS,
  ACK_QUIET_MS,
  ACTIONS,
  AFTER_ACK_CONCURRENCY,
  AUDIT_EVENTS,
  COMMAND,
  EVENTS_PATH,
  HEALTH_PATH,
  MAX_REQUEST_BYTES,
  MAX_REQUEST_SKEW_SECONDS,
  SWEEP_INTERVAL_MS,
} from './constants.ts';
import type { Deps } from './deps.ts';
import type { Config } from './env.ts';
import { registerHome } from './home.ts';
import { GuardedHTTPReceiver } from './http/guarded-receiver.ts';
import { createRequestGuard } from './http/request-guard.ts';
import { createIdentityResolver } from './identity.ts';
import { createLimiters } from './limits.ts';
import { createLogger } from './logger.ts';
import { createRedactions, type Redaction } from './redactions.ts';
import { registerRequestAccess, sweepRequests } from './request-access.ts';
import { errorFields } from './safe-error.ts';
import { createItemSearch } from './search.ts';
import { type Database, openDatabase } from './store/database.ts';
import { createSeenSignatures } from './store/seen-signatures.ts';

/** Options of {@link createBot} beyond the configuration. */
export interface BotOptions {
  /** Where log lines go; stdout by default. */
  logDestination?: DestinationStream | undefined;
  /** The `fetch` the vault client uses. */
  fetch?: typeof globalThis.fetch | undefined;
  /** A dump of a store to start an in-memory PGlite from (tests start many bots). */
  storeSnapshot?: Blob | undefined;
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
  /** Hides every password this instance still shows, sends the queued audit posts, then stops. */
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
  const { log, bolt, redact } = createLogger(
    config.logLevel,
    [config.vaultApiKey, config.botToken, config.signingSecret, config.appToken],
    options.logDestination,
  );
  // The operator's files first: a bad line is reported before anything else starts.
  const identity = await createIdentityResolver(config.identity);
  const db = await openDatabase(config.store, { snapshot: options.storeSnapshot });
  // Created first: the store's copies of seen signatures wait for a burst of requests to pause.
  const ackFirst = createAckFirst(ACK_QUIET_MS, ACK_MAX_DEFER_MS);
  const seen = createSeenSignatures(db, { quiet: () => ackFirst.quiet() });
  // PGlite runs on the bot's own thread: the statements of the work that follows acks wait until
  // the requests that arrived have their acks. The ack path's own reads (the replay check's and the
  // command limit's first loads) use `db` itself.
  const store = db.kind === 'pglite' ? afterAcks(db, ackFirst) : db;
  const vault = createVaultClient({
    baseUrl: config.vaultUrl,
    apiKey: config.vaultApiKey,
    timeoutMs: config.vaultTimeoutMs,
    fetch: options.fetch,
    retries: 1,
  });
  // Folder rights decide (read/userfolders); never the user's item list, which would carry every
  // password they may see.
  const access = createAccessChecker(vault, { ttlMs: config.accessCacheSeconds * 1000 });

  const clientOptions = config.slackApiUrl ? { slackApiUrl: config.slackApiUrl } : {};
  const receiver: Receiver =
    config.mode === 'socket'
      ? new SocketModeReceiver({
          appToken: config.appToken,
          logger: bolt,
          installerOptions: { clientOptions },
        })
      : new GuardedHTTPReceiver(
          {
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
          },
          EVENTS_PATH,
          withArrival(
            ackFirst,
            createRequestGuard({
              signingSecret: config.signingSecret,
              maxBytes: MAX_REQUEST_BYTES,
              maxSkewSeconds: MAX_REQUEST_SKEW_SECONDS,
              seen,
              responseUrlOrigins: config.responseUrlOrigins,
              teamIds: config.teamIds,
              appIds: config.appIds,
              logger: log,
            }),
          ),
          (error) => log.error(errorFields(error, redact), 'request check failed'),
        );
  const app = new App({ token: config.botToken, receiver, logger: bolt, clientOptions });

  const postRedaction = async (redaction: Redaction) => {
    if (redaction.kind === 'view') {
      await app.client.views.update({ view_id: redaction.target, view: redaction.message as never });
      return;
    }
    // Checked again here: only Slack's hooks host ever gets a post from the bot.
    if (!config.responseUrlOrigins.includes(new URL(redaction.target).origin))
      throw new Error('a response_url outside Slack’s hooks host was not posted to');
    const res = await fetch(redaction.target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(redaction.message),
    });
    if (!res.ok) throw new Error(`the response_url answered HTTP ${res.status}`);
  };
  const instance = randomUUID();
  const limiters = await createLimiters(db, config, (error) =>
    log.warn(errorFields(error, redact), 'the rate-limit store could not be reached; limiting in memory'),
  );
  const deps: Deps = {
    config,
    vault,
    access,
    search: createItemSearch(vault, access),
    identity,
    audit: createAuditLog({
      file: config.auditFile,
      channel: config.auditChannel,
      client: () => app.client,
      logger: log,
    }),
    db: store,
    ...limiters,
    redactions: createRedactions(store, instance, postRedaction, (error) =>
      log.warn(errorFields(error, redact), 'could not hide a revealed password'),
    ),
    requests: createAccessRequests(store),
    slack: () => app.client,
    deliveries: new Set(),
    logger: log,
    redact,
    afterAck: pLimit(AFTER_ACK_CONCURRENCY),
    ackFirst,
  };

  app.use(async (args) => {
    deps.ackFirst.mark();
    if (!(await withinCommandLimit(deps, args))) return;
    await args.next();
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
  registerRequestAccess(app, deps);
  registerHome(app, deps);
  app.error(async (error) => {
    log.error({ ...errorFields(error, redact), code: error.code }, 'unhandled error in a listener');
  });

  let sweeping = false;
  let lastSignatureSweep = 0;
  const sweep = async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      // The sweep's statements run on the embedded store (PGlite: the bot's own thread): after a
      // burst of requests, not between its acks.
      await ackFirst.quiet();
      await deps.redactions.sweep();
      await sweepRequests(deps);
      if (Date.now() - lastSignatureSweep > 60_000) {
        lastSignatureSweep = Date.now();
        await seen.sweep();
      }
    } catch (error) {
      log.warn(errorFields(error, redact), 'sweep failed');
    } finally {
      sweeping = false;
    }
  };
  let timer: NodeJS.Timeout | undefined;

  return {
    app,
    deps,
    async start() {
      timer = setInterval(() => void sweep(), SWEEP_INTERVAL_MS);
      timer.unref();
      void sweep();
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
      if (timer) clearInterval(timer);
      await Promise.allSettled([...deps.deliveries]);
      await deps.redactions.flush();
      await deps.audit.flush(5000);
      await app.stop().catch(() => undefined);
      while (sweeping) await new Promise((resolve) => setTimeout(resolve, 10));
      // The command counts not yet in the store, so that a restart still knows them.
      await deps.commandLimiter.close();
      await seen.flush();
      await db.close();
    },
  };
}

/**
 * The per-user limit of commands and clicks, checked before anything reaches the vault: one
 * person's flood is answered "slow down" alone, long before the vault's budget for the bot's
 * address (which every user shares) runs out.
 */
async function withinCommandLimit(deps: Deps, args: AnyMiddlewareArgs & AllMiddlewareArgs): Promise<boolean> {
  const body = args.body as {
    user_id?: unknown;
    user?: { id?: unknown };
    team_id?: unknown;
    channel_id?: unknown;
  };
  const user = typeof body.user_id === 'string' ? body.user_id : body.user?.id;
  if (typeof user !== 'string' || !('ack' in args)) return true;
  // Opening a link is Slack's own doing; the click only has to be acknowledged.
  if ('action' in args && (args.action as { action_id?: string }).action_id === ACTIONS.openUrl) return true;
  const limit = await deps.commandLimiter.hit(user);
  if (limit.allowed) return true;
  const message = note(
    `You are sending commands faster than the bot allows. Please wait ${limit.retryAfterSeconds} s.`,
  );
  if ('command' in args) await args.ack(message);
  else {
    await (args.ack as () => Promise<void>)();
    if ('respond' in args && typeof (args.body as { response_url?: unknown }).response_url === 'string')
      await args.respond(message).catch(() => undefined);
  }
  await deps.audit.record({
    event: AUDIT_EVENTS.commandLimited,
    slackUser: user,
    slackTeam: typeof body.team_id === 'string' ? body.team_id : undefined,
    login: undefined,
    channel: typeof body.channel_id === 'string' ? body.channel_id : undefined,
    outcome: 'rate_limited',
  });
  return false;
}

/**
 * Notes each request from its arrival until its answer is written, for at most
 * {@link ACK_MAX_DEFER_MS}: the work that follows acks waits while requests are coming in or
 * waiting for their ack, and a slow or hostile request cannot hold it back for longer.
 */
function withArrival(
  ackFirst: AckFirst,
  guard: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>,
): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  return (req, res) => {
    const answered = ackFirst.open();
    const cap = setTimeout(answered, ACK_MAX_DEFER_MS);
    cap.unref();
    res.once('close', () => {
      clearTimeout(cap);
      answered();
    });
    return guard(req, res);
  };
}

/**
 * The store, with each statement held back until no request waits for its ack (at most the
 * gate's longest wait).
 */
function afterAcks(db: Database, ackFirst: AckFirst): Database {
  return {
    ...db,
    async query(sql, params) {
      await ackFirst.quiet();
      return db.query(sql, params);
    },
  };
}
