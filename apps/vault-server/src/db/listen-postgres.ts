/**
 * The PostgreSQL side of `changes.ts`: a connection of its own that listens to the announcements,
 * and says in the log when it is lost, why, and when it listens again.
 *
 * @module
 */

import pg from 'pg';
import type { Logger } from 'pino';
import { loggableError } from '../logger.ts';
import { CHANGES_CHANNEL, type ChangeFeed, type ChangeHandlers, parseChange } from './changes.ts';
import { APPLICATION_NAME } from './older-instances.ts';

const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 5_000;

/** Where the listener reports its losses and returns. */
export type FeedLog = Pick<Logger, 'warn'>;

/** Why the connection was lost or refused, as logged. */
interface Reason {
  name: string;
  message: string;
  code?: string;
}

/**
 * What of an error goes into the log ({@link loggableError}), with the connection string and its
 * password taken out: a driver's message may quote what it was given.
 *
 * @param error The error, or undefined when the connection ended without one.
 * @param connectionString The `DATABASE_URL`.
 * @returns The reason to log.
 */
export function reasonOf(error: unknown, connectionString: string): Reason {
  const reason: Reason =
    error === undefined ? { name: 'Error', message: 'the connection was closed' } : loggableError(error);
  const secrets = [connectionString];
  try {
    const { password } = new URL(connectionString);
    if (password) secrets.push(password, decodeURIComponent(password));
  } catch {
    // Not a URL (a key=value string): the whole of it is still taken out.
  }
  for (const secret of secrets) reason.message = reason.message.replaceAll(secret, '[redacted]');
  return reason;
}

/**
 * Listens to {@link CHANGES_CHANNEL} on a connection of its own (a pooled connection cannot
 * listen), reconnecting with backoff (250 ms, doubling, at most 5 s) when it is lost. Logs at
 * `warn`: the loss, with its reason; a failed attempt to listen again whose reason differs from
 * the one logged before (an outage of minutes is a few lines, not one per attempt); and the return,
 * with how long it was down and how many attempts failed.
 *
 * @param connectionString The `DATABASE_URL`.
 * @param handlers Told of each change and of each loss or return of the feed.
 * @param log Where losses and returns are logged.
 * @returns The subscription.
 */
export function listenToChanges(
  connectionString: string,
  handlers: ChangeHandlers,
  log: FeedLog,
): ChangeFeed {
  let client: pg.Client | undefined;
  let live = false;
  let since = new Date();
  let closed = false;
  let retryMs = FIRST_RETRY_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** Since when nothing is received (a loss, or a first attempt that failed); undefined while live. */
  let downSince: number | undefined;
  let failedAttempts = 0;
  /** The reason last logged during this outage, so that a repeated one is not logged again. */
  let lastLogged: string | undefined;

  const setLive = (next: boolean) => {
    if (live === next) return;
    live = next;
    since = new Date();
    handlers.onLive(next);
  };

  const retry = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, retryMs);
    timer.unref();
    retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
  };

  const failed = (error: unknown) => {
    downSince ??= Date.now();
    failedAttempts += 1;
    const reason = reasonOf(error, connectionString);
    const key = `${reason.code ?? ''} ${reason.message}`;
    if (key !== lastLogged) {
      lastLogged = key;
      log.warn(
        { reason, attempts: failedAttempts },
        "cannot listen to the database's change announcements; caches bypassed, retrying",
      );
    }
    retry();
  };

  async function connect(): Promise<void> {
    // keepAlive: a connection that dies silently (a dropped network path) is noticed, not trusted.
    const next = new pg.Client({ connectionString, keepAlive: true, application_name: APPLICATION_NAME });
    // Why the connection ended: the first error it reports. The server says why (terminated by an
    // administrator, shutting down) before it closes; pg then adds "Connection terminated
    // unexpectedly", which says less.
    let cause: unknown;
    next.on('error', (error) => {
      cause ??= error;
    });
    next.on('notification', (message) => {
      if (message.channel !== CHANGES_CHANNEL) return;
      handlers.onChange(parseChange(message.payload) ?? { kind: 'items', ids: 'all' });
    });
    next.on('end', () => {
      if (client !== next) return;
      client = undefined;
      downSince = Date.now();
      failedAttempts = 0;
      const reason = reasonOf(cause, connectionString);
      lastLogged = `${reason.code ?? ''} ${reason.message}`;
      log.warn({ reason }, 'database change announcements lost; caches bypassed until listening again');
      setLive(false);
      retry();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (error) {
      await next.end().catch(() => {});
      if (!closed) failed(error);
      return;
    }
    if (closed) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
    retryMs = FIRST_RETRY_MS;
    if (downSince !== undefined) {
      log.warn(
        { downMs: Date.now() - downSince, attempts: failedAttempts },
        "listening to the database's change announcements again; caches forgotten",
      );
      downSince = undefined;
      failedAttempts = 0;
      lastLogged = undefined;
    }
    setLive(true);
  }

  void connect();
  return {
    get live() {
      return live;
    },
    get since() {
      return since;
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const open = client;
      client = undefined;
      live = false;
      await open?.end().catch(() => {});
    },
  };
}
