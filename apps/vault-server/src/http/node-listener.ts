/**
 * The Node adapter: turns `node:http` requests into the app's `fetch`, and answers every error that
 * never reaches the app (a request Node or the adapter cannot turn into a `Request`, a response
 * that fails) with the API's JSON, logged like any other request.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { getRequestListener, type HttpBindings, RequestError } from '@hono/node-server';
import type { Logger } from 'pino';
import { JSON_HEADERS } from './api-response.ts';
import { INTERNAL_ERROR, loggableError } from './error-mapping.ts';

/** What the adapter needs. */
export interface NodeListenerOptions {
  /** The app's fetch. */
  readonly fetch: (request: Request, env: HttpBindings) => Response | Promise<Response>;
  readonly logger: Logger;
}

function json(status: number, err: string, code: string): Response {
  return new Response(JSON.stringify({ err, code }), { status, headers: JSON_HEADERS });
}

/**
 * The request listener of the server.
 *
 * @param options The app and the logger.
 * @returns A `node:http` request listener.
 */
export function createNodeListener(
  options: NodeListenerOptions,
): (incoming: IncomingMessage, outgoing: ServerResponse) => void {
  const { logger } = options;
  const { fetch } = options;
  // The server is HTTP/1.1 only: the adapter's bindings are always node:http's.
  const listener = getRequestListener((request, env) => fetch(request, env as HttpBindings), {
    errorHandler: (error) => {
      // The adapter refuses requests it cannot build (a raw `\` in the path, a bad Host header):
      // the client's fault, answered and logged as an invalid request.
      if (error instanceof RequestError) {
        logger.info({ op: 'unknown', status: 400, reason: error.message }, 'request');
        return json(400, `Malformed request: ${error.message}.`, 'invalid_request');
      }
      logger.error({ op: 'unknown', status: 500, err: loggableError(error) }, 'request failed');
      return json(INTERNAL_ERROR.status, INTERNAL_ERROR.body.err, INTERNAL_ERROR.body.code);
    },
  });
  return (incoming, outgoing) => void listener(incoming, outgoing);
}

/**
 * Answers what Node itself refuses before any listener runs (a malformed request line, headers
 * too large) with the API's JSON, logged: Node would answer a bare 400 or 431.
 *
 * @param logger The logger.
 * @returns A `clientError` handler.
 */
export function createClientErrorHandler(
  logger: Logger,
): (error: NodeJS.ErrnoException, socket: Socket) => void {
  return (error, socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const overflow = error.code === 'HPE_HEADER_OVERFLOW';
    const status = overflow ? 414 : 400;
    const body = overflow
      ? JSON.stringify({ err: 'The request line or headers are too large.', code: 'too_large' })
      : JSON.stringify({ err: 'Malformed HTTP request.', code: 'invalid_request' });
    logger.info({ op: 'unknown', status, reason: error.code ?? 'malformed request' }, 'request');
    socket.end(
      `HTTP/1.1 ${overflow ? '414 URI Too Long' : '400 Bad Request'}\r\nContent-Type: application/json\r\nCache-Control: no-store\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}
