import { App } from '@slack/bolt';
import type { Database } from '@vaultline/store';
import type { DestinationStream } from 'pino';
import { type AckFirst, createAckFirst } from './ack-first.ts';
import { registerActions } from './bot/actions.ts';
import { registerCommands } from './bot/commands.ts';
import { registerGuards } from './bot/guards.ts';
import { registerHome } from './bot/home.ts';
import { startBot, stopBot } from './bot/lifecycle.ts';
import { createDeps } from './bot/parts.ts';
import { createReceiver } from './bot/receiver.ts';
import { createServedTeams } from './bot/served-teams.ts';
import { createSweeper } from './bot/sweeper.ts';
import { decideVaultMode } from './bot/vault-mode.ts';
import { registerViews } from './bot/views.ts';
import { ACK_MAX_DEFER_MS, ACK_QUIET_MS } from './constants.ts';
import type { Deps } from './deps.ts';
import type { Config } from './env.ts';
import { createIdentityResolver } from './identity.ts';
import { registerLink } from './linking/register.ts';
import { createLogger } from './logger.ts';
import { errorFields } from './safe-error.ts';
import { openDatabase } from './store/database.ts';
import { createSeenSignatures } from './store/seen-signatures.ts';

/** Options of {@link createBot} beyond the configuration. */
export interface BotOptions {
  /** Where log lines go; stdout by default. */
  logDestination?: DestinationStream | undefined;
  /** The `fetch` the vault clients use (and the start's one keyless request to the vault). */
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
 * Builds the bot: its parts, the Bolt app on the receiver the configuration asks for, and its
 * listeners (guards, the command, the buttons, the views, the App Home).
 *
 * @param config The validated settings.
 * @param options Log destination and fetch, for tests.
 * @returns The bot, not started.
 */
export async function createBot(config: Config, options: BotOptions = {}): Promise<Bot> {
  const linkKeys = config.link ? [config.link.key, ...config.link.previousKeys] : [];
  const { log, bolt, redact, secrets } = createLogger(
    config.logLevel,
    [
      config.vaultApiKey ?? '',
      config.botToken,
      config.signingSecret,
      config.appToken,
      ...linkKeys.flatMap((key) => [key.toString('base64'), key.toString('base64url')]),
    ],
    options.logDestination,
  );
  // What the vault can do decides how people reach it; then the operator's files, before
  // anything else starts (a bad line is reported first).
  const mode = await decideVaultMode(config, options.fetch, log);
  const identity = mode.linking ? undefined : await createIdentityResolver(config.identity);
  const db = await openDatabase(config.store, { snapshot: options.storeSnapshot });
  // Created first: the store's copies of seen signatures wait for a burst of requests to pause.
  const ackFirst = createAckFirst(ACK_QUIET_MS, ACK_MAX_DEFER_MS);
  const seen = createSeenSignatures(db, { quiet: () => ackFirst.quiet() });
  const teams = createServedTeams(config.teamIds);
  const receiver = createReceiver(config, { log, bolt, redact, ackFirst, seen, teams });
  const clientOptions = config.slackApiUrl ? { slackApiUrl: config.slackApiUrl } : {};
  // Bolt checks the token and reads the bot's identity (auth.test) once, in `app.init()` at start
  // (startBot), which fails with words for the operator; then every request uses the cached ids.
  // Checked in the constructor, a failure would be an unhandled rejection; left unchecked, Bolt
  // would call auth.test before every request's ack.
  const app = new App({
    token: config.botToken,
    receiver,
    logger: bolt,
    clientOptions,
    deferInitialization: true,
  });

  // PGlite runs on the bot's own thread: the statements of the work that follows acks wait until
  // the requests that arrived have their acks. The ack path's own reads (the replay check's and the
  // command limit's first loads) use `db` itself.
  const store = db.kind === 'pglite' ? afterAcks(db, ackFirst) : db;
  const deps = await createDeps(config, {
    app,
    db,
    store,
    identity,
    ackFirst,
    log,
    redact,
    secrets,
    mode,
    fetch: options.fetch,
  }).catch(async (error: unknown) => {
    await db.close().catch(() => undefined);
    throw error;
  });

  registerGuards(app, deps);
  registerCommands(app, deps);
  registerActions(app, deps);
  registerViews(app, deps);
  registerHome(app, deps);
  registerLink(app, deps);
  app.error(async (error) => {
    log.error({ ...errorFields(error, redact), code: error.code }, 'unhandled error in a listener');
  });

  const lifecycle = { app, deps, sweeper: createSweeper(deps, seen, ackFirst), seen, db, teams };
  return { app, deps, start: () => startBot(lifecycle), stop: () => stopBot(lifecycle) };
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
    async exec(sql) {
      await ackFirst.quiet();
      return db.exec(sql);
    },
    async transaction(work) {
      await ackFirst.quiet();
      return db.transaction(work);
    },
  };
}
