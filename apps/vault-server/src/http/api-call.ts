/**
 * One API request as the API pipeline sees it, whichever way it arrived (straight from `node:http`
 * or through the Hono app), and the answer it gets. No framework type appears here: the pipeline
 * is plain functions over these.
 *
 * @module
 */

import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

/** The request. */
export interface ApiRequest {
  /** `GET`, `POST`, … as sent. */
  readonly method: string;
  /** The raw request target (path and query), never percent-decoded nor normalised. */
  readonly target: string;
  /**
   * A request header.
   *
   * @param name The header's name, in lower case.
   */
  header(name: string): string | undefined;
  /** The socket's peer address; `undefined` without a socket (`app.request()` in tests). */
  readonly socketAddress: string | undefined;
  /**
   * The body as node:http receives it, read only by a handler that takes one (add/file): read
   * straight from the socket, so that a slow reader holds the client back rather than buffering.
   */
  readonly body: () => Readable;
  /** A signal aborted when the client goes away before its answer is sent (asked in upstream mode only). */
  readonly departed?: (() => AbortSignal) | undefined;
  /** When the server took the request in (epoch ms). */
  readonly receivedAt?: number | undefined;
}

/**
 * A signal aborted when the response's connection closes before the response was sent.
 *
 * @param outgoing The response.
 * @returns The signal.
 */
export function departedSignal(outgoing: ServerResponse): AbortSignal {
  const controller = new AbortController();
  if (outgoing.writableFinished) return controller.signal;
  if (outgoing.destroyed) {
    controller.abort(new DOMException('The client went away.', 'AbortError'));
    return controller.signal;
  }
  outgoing.once('close', () => {
    if (!outgoing.writableFinished) controller.abort(new DOMException('The client went away.', 'AbortError'));
  });
  return controller.signal;
}

/** The answer. */
export interface ApiAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The body; a stream (an attachment) is written as it is read, and destroyed if never written. */
  readonly body: string | Uint8Array | Readable;
}
