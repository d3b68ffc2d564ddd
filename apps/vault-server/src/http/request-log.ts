/**
 * The request log and the URL length limit: one line per request (operation, status, time,
 * address, key label), never the URL, which may carry the key and written values.
 *
 * @module
 */

import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import { errorResponse } from './api-response.ts';
import { type AppEnv, rawTarget } from './app-env.ts';

/**
 * Logs every request once it is answered, and answers 414 to a URL longer than the limit.
 *
 * @param logger The logger.
 * @param maxUrlLength The longest request target, in bytes.
 * @returns The middleware.
 */
export function requestLog(logger: Logger, maxUrlLength: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    c.set('operation', 'unknown');
    if (Buffer.byteLength(rawTarget(c)) > maxUrlLength) {
      logger.info({ op: 'unknown', status: 414 }, 'request');
      return errorResponse(414, {
        err: `The request URL is longer than the limit of ${maxUrlLength} bytes.`,
        code: 'too_large',
      });
    }
    await next();
    logger.info(
      {
        op: c.get('operation'),
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 100) / 100,
        addr: c.get('address'),
        keyLabel: c.get('principal')?.keyLabel,
      },
      'request',
    );
    return undefined;
  };
}
