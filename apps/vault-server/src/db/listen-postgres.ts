/**
 * The PostgreSQL side of `changes.ts`: a connection of its own that listens to the announcements.
 *
 * @module
 */

import pg from 'pg';
import { CHANGES_CHANNEL, type ChangeFeed, type ChangeHandlers, parseChange } from './changes.ts';

const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 5_000;

/**
 * Listens to {@link CHANGES_CHANNEL} on a connection of its own (a pooled connection cannot
 * listen), reconnecting with backoff when it is lost.
 *
 * @param connectionString The `DATABASE_URL`.
 * @param handlers Told of each change and of each loss or return of the feed.
 * @returns The subscription.
 */
export function listenToChanges(connectionString: string, handlers: ChangeHandlers): ChangeFeed {
  let client: pg.Client | undefined;
  let live = false;
  let closed = false;
  let retryMs = FIRST_RETRY_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const setLive = (next: boolean) => {
    if (live === next) return;
    live = next;
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

  async function connect(): Promise<void> {
    // keepAlive: a connection that dies silently (a dropped network path) is noticed, not trusted.
    const next = new pg.Client({ connectionString, keepAlive: true });
    next.on('error', () => {});
    next.on('notification', (message) => {
      if (message.channel !== CHANGES_CHANNEL) return;
      handlers.onChange(parseChange(message.payload) ?? { kind: 'items', ids: 'all' });
    });
    next.on('end', () => {
      if (client !== next) return;
      client = undefined;
      setLive(false);
      retry();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch {
      await next.end().catch(() => {});
      retry();
      return;
    }
    if (closed) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
    retryMs = FIRST_RETRY_MS;
    setLive(true);
  }

  void connect();
  return {
    get live() {
      return live;
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
