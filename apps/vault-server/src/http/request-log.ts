/**
 * The request log and the URL length limit: one line per request (operation, status, time,
 * address, key label), never the URL, which may carry the key and written values.
 *
 * @module
 */

import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { ApiAnswer } from './api-call.ts';
import { errorAnswer, toResponse } from './api-response.ts';
import { type AppEnv, rawTarget } from './app-env.ts';

/** One request's line. */
export interface RequestLogEntry {
  /** The operation's name (`read/items`), `unknown` when none matched. */
  readonly op: string;
  readonly status: number;
  /** When the request arrived (`performance.now()`). */
  readonly started: number;
  readonly addr?: string | undefined;
  readonly keyLabel?: string | undefined;
}

/**
 * Writes one request's line.
 *
 * @param logger The logger.
 * @param entry The request.
 */
export function logRequest(logger: Logger, entry: RequestLogEntry): void {
  logger.info(
    {
      op: entry.op,
      status: entry.status,
      ms: Math.round((performance.now() - entry.started) * 100) / 100,
      addr: entry.addr,
      keyLabel: entry.keyLabel,
    },
    'request',
  );
}

/**
 * The 414 answer to a request target longer than the limit.
 *
 * @param target The raw request target.
 * @param maxUrlLength The longest request target, in bytes.
 * @returns The answer, or `undefined` when the target is within the limit.
 */
export function urlTooLong(target: string, maxUrlLength: number): ApiAnswer | undefined {
  // A UTF-8 byte is at least one UTF-16 unit: only a long string needs counting.
  if (target.length <= maxUrlLength / 3 || Buffer.byteLength(target) <= maxUrlLength) return undefined;
  return errorAnswer(414, {
    err: `The request URL is longer than the limit of ${maxUrlLength} bytes.`,
    code: 'too_large',
  });
}

/**
 * The Hono app's request log: logs every request it answers (unless the API pipeline it handed
 * the request to has logged it), and answers 414 to a URL longer than the limit.
 *
 * @param logger The logger.
 * @param maxUrlLength The longest request target, in bytes.
 * @returns The middleware.
 */
export function requestLog(logger: Logger, maxUrlLength: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    c.set('operation', 'unknown');
    const tooLong = urlTooLong(rawTarget(c), maxUrlLength);
    if (tooLong) {
      logRequest(logger, { op: 'unknown', status: tooLong.status, started });
      return toResponse(tooLong);
    }
    await next();
    if (c.get('logged') !== true) {
      logRequest(logger, { op: c.get('operation'), status: c.res.status, started, addr: c.get('address') });
    }
    return undefined;
  };
}
