/**
 * The request listener: the API's GET requests go straight to the API pipeline, everything else
 * through the Hono app's Node adapter. Every error that never reaches the app (a request Node or
 * the adapter cannot turn into a `Request`, a response that fails) is answered with the API's
 * JSON, logged like any other request.
 *
 * Answers of the direct path are written together once per turn of the event loop, after every
 * request that arrived in that turn was handled. On loopback each socket write also wakes the
 * client; measured with wrk on read/items, writing them in one go cut the server's CPU per request
 * from 46 to 34 µs, for a few microseconds more latency. (`socket.cork()` cannot do it:
 * `ServerResponse.end()` uncorks the socket at once.)
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { getRequestListener, type HttpBindings, RequestError } from '@hono/node-server';
import type { Logger } from 'pino';
import { loggableError } from '../logger.ts';
import { type ApiAnswer, type ApiRequest, departedSignal } from './api-call.ts';
import { type ApiPipeline, apiPrefixOf } from './api-pipeline.ts';
import { errorAnswer, toResponse } from './api-response.ts';
import { UNKNOWN_ADDRESS } from './app-env.ts';
import { INTERNAL_ERROR } from './error-mapping.ts';

/** What the listener needs. */
export interface NodeListenerOptions {
  /** The app's fetch. */
  readonly fetch: (request: Request, env: HttpBindings) => Response | Promise<Response>;
  /** The API pipeline, for the API's GET requests. */
  readonly api: ApiPipeline;
  /** Whether browser requests (with an `Origin`) go through the app for CORS. */
  readonly cors: boolean;
  readonly logger: Logger;
}

/** An API request straight from node:http (a class: no closures to allocate per request). */
class NodeApiRequest implements ApiRequest {
  readonly method = 'GET';
  readonly target: string;
  readonly socketAddress: string | undefined;
  readonly receivedAt = Date.now();
  readonly #incoming: IncomingMessage;
  readonly #outgoing: ServerResponse;

  constructor(incoming: IncomingMessage, outgoing: ServerResponse, target: string) {
    this.#incoming = incoming;
    this.#outgoing = outgoing;
    this.target = target;
    // Once the socket is gone Node no longer knows the peer: never take such a client for local.
    this.socketAddress = incoming.socket.remoteAddress ?? UNKNOWN_ADDRESS;
  }

  header(name: string): string | undefined {
    const value = this.#incoming.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  departed(): AbortSignal {
    return departedSignal(this.#outgoing);
  }

  body(): Readable {
    // The direct path takes GET requests only: their body is never read.
    throw new Error('A GET request of the API has no body to read.');
  }
}

/**
 * Writes answers once per turn of the event loop (see the module's comment). A streamed body is
 * piped with backpressure; one that fails part-way cuts the response short (its status and
 * `Content-Length` are sent already, so the client sees a body that ends early, never wrong bytes;
 * the API pipeline logs why).
 *
 * @param onError Told of an answer node:http refuses to write (nothing of it was sent).
 * @returns A function that queues one answer for its response.
 */
export function answerWriter(
  onError: (error: unknown, outgoing: ServerResponse) => void,
): (outgoing: ServerResponse, answer: ApiAnswer) => void {
  let pending: { outgoing: ServerResponse; answer: ApiAnswer }[] = [];
  const writeAll = () => {
    const answers = pending;
    pending = [];
    for (const { outgoing, answer } of answers) {
      const stream = answer.body instanceof Readable ? answer.body : undefined;
      if (outgoing.destroyed) {
        stream?.destroy();
        continue;
      }
      try {
        outgoing.writeHead(answer.status, answer.headers);
        if (stream) pipeline(stream, outgoing).catch(() => {});
        else outgoing.end(answer.body);
      } catch (error) {
        stream?.destroy();
        // A header node:http refuses: the other answers of the turn are still written.
        onError(error, outgoing);
      }
    }
  };
  return (outgoing, answer) => {
    if (pending.push({ outgoing, answer }) === 1) setImmediate(writeAll);
  };
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
  const { logger, fetch, api } = options;
  // A defect of the server (never the client's fault): logged, answered 500 without its details.
  const internalError = (error: unknown): ApiAnswer => {
    logger.error({ op: 'unknown', status: 500, err: loggableError(error) }, 'request failed');
    return errorAnswer(INTERNAL_ERROR.status, INTERNAL_ERROR.body);
  };
  const answer = answerWriter((error, outgoing) => {
    const failure = internalError(error);
    if (outgoing.headersSent) outgoing.destroy();
    else outgoing.writeHead(failure.status, failure.headers).end(failure.body);
  });
  // The server is HTTP/1.1 only: the adapter's bindings are always node:http's.
  const listener = getRequestListener((request, env) => fetch(request, env as HttpBindings), {
    errorHandler: (error) => {
      // The adapter refuses requests it cannot build (a raw `\` in the path, a bad Host header):
      // the client's fault, answered and logged as an invalid request.
      if (error instanceof RequestError) {
        logger.info({ op: 'unknown', status: 400, reason: error.message }, 'request');
        return toResponse(
          errorAnswer(400, { err: `Malformed request: ${error.message}.`, code: 'invalid_request' }),
        );
      }
      return toResponse(internalError(error));
    },
  });
  const answerDirectly = async (incoming: IncomingMessage, outgoing: ServerResponse, target: string) => {
    try {
      answer(outgoing, await api(new NodeApiRequest(incoming, outgoing, target)));
    } catch (error) {
      // The pipeline answers every error itself: this is a defect of the server.
      answer(outgoing, internalError(error));
    }
  };
  return (incoming, outgoing) => {
    const target = incoming.url ?? '';
    if (
      incoming.method === 'GET' &&
      apiPrefixOf(target) !== undefined &&
      !(options.cors && incoming.headers.origin !== undefined)
    ) {
      void answerDirectly(incoming, outgoing, target);
    } else {
      void listener(incoming, outgoing);
    }
  };
}

/** The status line and body of each error node:http reports on a socket. */
function clientErrorAnswer(code: string | undefined): { line: string; body: string; status: number } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 414,
      line: '414 URI Too Long',
      body: JSON.stringify({ err: 'The request line or headers are too large.', code: 'too_large' }),
    };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      line: '408 Request Timeout',
      body: JSON.stringify({ err: 'The request was not received in time.', code: 'timeout' }),
    };
  }
  return {
    status: 400,
    line: '400 Bad Request',
    body: JSON.stringify({ err: 'Malformed HTTP request.', code: 'invalid_request' }),
  };
}

/**
 * Answers what Node itself refuses before any listener runs (a malformed request line, headers
 * too large, a request not received within the request timeout) with the API's JSON, logged: Node
 * would answer a bare 400, 431 or 408. A timed-out request's socket is destroyed, never
 * half-closed: a request still being read (an upload whose client stopped sending) fails at once,
 * so its handler lets go of what it holds (its transfer place, the chunks stored so far).
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
    const { status, line, body } = clientErrorAnswer(error.code);
    logger.info({ op: 'unknown', status, reason: error.code ?? 'malformed request' }, 'request');
    const answer = `HTTP/1.1 ${line}\r\nContent-Type: application/json\r\nCache-Control: no-store\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
    if (status === 408) {
      // Written, then destroyed as node:http does it itself: the request being read fails now
      // (half-closed, its body would wait forever for bytes that never come).
      socket.write(answer);
      socket.destroy();
    } else {
      // Nothing was handed to a listener: the client gets the answer before the socket closes.
      socket.end(answer);
    }
  };
}
