/**
 * CORS for an allow-list of origins (VS Code for the Web calls the vault from a browser): nothing
 * is allowed by default. Preflight requests from an allowed origin are answered without a key.
 *
 * @module
 */

import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { AppEnv } from './app-env.ts';

/** How long a browser may keep a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * The CORS middleware, or `undefined` when no origin is allowed.
 *
 * @param origins Allowed origins, e.g. `https://vscode.dev` (scheme, host and port, exactly).
 * @returns The middleware.
 */
export function corsMiddleware(origins: readonly string[]): MiddlewareHandler<AppEnv> | undefined {
  if (origins.length === 0) return undefined;
  const allowed = new Set(origins);
  return cors({
    origin: (origin) => (allowed.has(origin) ? origin : null),
    allowMethods: ['GET', 'POST', 'OPTIONS'],
    allowHeaders: ['authorization', 'content-type'],
    exposeHeaders: ['content-disposition', 'retry-after'],
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
    credentials: false,
  });
}
