/**
 * The app: wiring only. Each concern is a middleware of its own file, in this order: the request
 * log (and URL limit), the client address, CORS, `/healthz`, `/readyz` and `/openapi.json` (no key), the request limit, the keyless identification,
 * the key check (and failed-key lockout), then one route per row of the endpoint table with its
 * audit. Every error is answered by {@link toApiError}.
 *
 * @module
 */

import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { AuditWriter } from '../store/audit-writer.ts';
import type { StoreContext } from '../store/store-context.ts';
import type { AppEnv } from './app-env.ts';
import { clientAddressMiddleware } from './client-address.ts';
import { corsMiddleware } from './cors.ts';
import { apiErrorHandler, apiNotFound } from './error-mapping.ts';
import { keyCheck, type QueryKeyPolicy } from './key-check.ts';
import { type Limiters, requestLimit } from './limits.ts';
import { registerOpenApi } from './openapi-route.ts';
import { registerOperations } from './operations.ts';
import { requestLog } from './request-log.ts';
import { registerServerInfo } from './server-info.ts';

/** What the HTTP layer needs. */
export interface AppOptions {
  ctx: StoreContext;
  audit: AuditWriter;
  logger: Logger;
  limiters: Limiters;
  maxUrlLength: number;
  maxFileBytes: number;
  trustedProxies: readonly string[];
  /** Whether `?apikey=` is accepted besides `Authorization: Bearer`. */
  queryKeys: QueryKeyPolicy;
  /** Origins allowed to call the API from a browser; none by default. */
  corsOrigins: readonly string[];
}

/**
 * Builds the Hono app: `/healthz`, `/readyz`, and every row of the endpoint table under
 * `/api/index.php` and `/api`.
 */
export function createApp(options: AppOptions): Hono<AppEnv> {
  const { ctx, logger } = options;
  const app = new Hono<AppEnv>();

  app.onError(apiErrorHandler(logger));
  app.notFound(apiNotFound);

  app.use('*', requestLog(logger, options.maxUrlLength));
  app.use('*', clientAddressMiddleware(options.trustedProxies));
  const cors = corsMiddleware(options.corsOrigins);
  if (cors) app.use('/api/*', cors);

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  registerOpenApi(app);
  app.get('/readyz', async (c) => {
    try {
      await ctx.db.query('SELECT 1');
      return c.json({ status: 'ready' });
    } catch {
      return c.json({ err: 'The database is not reachable.', code: 'server' }, 503);
    }
  });

  app.use('/api/*', requestLimit(options.limiters.requests));
  registerServerInfo(app, options.queryKeys);
  app.use(
    '/api/*',
    keyCheck({
      ctx,
      audit: options.audit,
      failedKeys: options.limiters.failedKeys,
      queryKeys: options.queryKeys,
    }),
  );
  registerOperations(app, { ctx, audit: options.audit, maxFileBytes: options.maxFileBytes });
  return app;
}
