/**
 * The server's request handling, wiring only: the API pipeline ({@link createApiPipeline}) for
 * everything under an API prefix, and a Hono app for the rest and for the API requests that need
 * it. Each concern is a file of its own. The app, in order: the request log (and URL limit), the
 * client address, CORS, `/healthz`, `/readyz` and `/openapi.json` (no key), then `/api/*` handed
 * to the pipeline. Every error is answered by {@link answerError}.
 *
 * @module
 */

import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { AuditWriter } from '../store/audit-writer.ts';
import type { StoreContext } from '../store/store-context.ts';
import type { VaultStore } from '../store/vault-store.ts';
import { type ApiRequest, departedSignal } from './api-call.ts';
import { type ApiPipeline, createApiPipeline } from './api-pipeline.ts';
import { toResponse } from './api-response.ts';
import { type AppContext, type AppEnv, rawTarget, socketAddressOf } from './app-env.ts';
import { addressOf, clientAddressMiddleware } from './client-address.ts';
import { corsMiddleware } from './cors.ts';
import { apiErrorHandler, apiNotFound } from './error-mapping.ts';
import type { QueryKeyPolicy } from './key-check.ts';
import type { Limiters } from './limits.ts';
import { registerOpenApi } from './openapi-route.ts';
import { requestLog } from './request-log.ts';
import type { TransferGate } from './transfer-gate.ts';

/** What the HTTP layer needs. */
export interface AppOptions {
  ctx: StoreContext;
  /** The vault's folders, items and attachments: the local store or the upstream one. */
  store: VaultStore;
  audit: AuditWriter;
  logger: Logger;
  limiters: Limiters;
  maxUrlLength: number;
  maxFileBytes: number;
  /** The bound on attachment transfers. */
  transfers: TransferGate;
  trustedProxies: readonly string[];
  /** Whether `?apikey=` is accepted besides `Authorization: Bearer`. */
  queryKeys: QueryKeyPolicy;
  /** Origins allowed to call the API from a browser; none by default. */
  corsOrigins: readonly string[];
  /** Upstream mode: the time each caller is given for its upstream work, in ms. */
  upstreamDeadlineMs?: number | undefined;
}

/** The server's request handling. */
export interface ServerApp {
  /** The Hono app: every route, the API's included (through {@link api}). */
  readonly app: Hono<AppEnv>;
  /** The API pipeline, which `node:http` may call directly. */
  readonly api: ApiPipeline;
  /** Whether API requests from browsers go through the app, for CORS. */
  readonly cors: boolean;
}

/** An API request as the Hono app received it. */
function apiRequestOf(c: AppContext): ApiRequest {
  return {
    method: c.req.method,
    target: rawTarget(c),
    header: (name) => c.req.header(name),
    socketAddress: socketAddressOf(c),
    receivedAt: Date.now(),
    // node:http's own stream: the Request's web stream (Readable.toWeb) queues chunks without
    // bounding their bytes, so a body faster than the store would pile up in memory.
    departed: () => (c.env?.outgoing ? departedSignal(c.env.outgoing) : c.req.raw.signal),
    body: () =>
      c.env?.incoming ??
      (c.req.raw.body ? Readable.fromWeb(c.req.raw.body as WebReadableStream) : Readable.from([])),
  };
}

/**
 * Builds the pipeline and the app: `/healthz`, `/readyz`, `/openapi.json`, and every row of the
 * endpoint table under `/api/index.php` and `/api`.
 */
export function createApp(options: AppOptions): ServerApp {
  const { ctx, logger } = options;
  const resolveAddress = addressOf(options.trustedProxies);
  const api = createApiPipeline({ ...options, addressOf: resolveAddress });
  const app = new Hono<AppEnv>();

  app.onError(apiErrorHandler(logger));
  app.notFound(apiNotFound);

  app.use('*', requestLog(logger, options.maxUrlLength));
  app.use('*', clientAddressMiddleware(resolveAddress));
  const cors = corsMiddleware(options.corsOrigins);
  if (cors) app.use('/api/*', cors);

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  registerOpenApi(app);
  // 503 only when this instance cannot answer (its database is unreachable). Without the change
  // announcements (PostgreSQL) it still answers right, from the database instead of its caches:
  // 200, "degraded", so that a load balancer keeps it (every instance loses the announcements at
  // once when PostgreSQL restarts) while monitoring sees it. See the README's "Readiness".
  app.get('/readyz', async (c) => {
    try {
      await ctx.db.query('SELECT 1');
    } catch {
      return c.json({ err: 'The database is not reachable.', code: 'server' }, 503);
    }
    // The audit stream never makes the instance unready: its counters are details for monitoring.
    const stream = options.audit.streamStats();
    const audit = stream && {
      audit: { queued: stream.queued, dropped: stream.dropped, sinks: stream.sinks },
    };
    const changes = ctx.changes();
    if (!changes || changes.listening) return c.json({ status: 'ready', ...audit });
    return c.json({
      status: 'degraded',
      changes: { listening: false, since: changes.since.toISOString() },
      ...audit,
    });
  });
  app.all('/api/*', async (c) => {
    c.set('logged', true);
    return toResponse(await api(apiRequestOf(c)));
  });
  return { app, api, cors: cors !== undefined };
}
