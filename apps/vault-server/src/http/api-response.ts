/**
 * How the API answers: the headers every answer carries, the body of an error, and a handler's
 * body turned into an {@link ApiAnswer}.
 *
 * @module
 */

import { Readable } from 'node:stream';
import { neutralizeText, type VaultErrorReason } from '@vaultline/protocol';
import type { ApiAnswer } from './api-call.ts';

// Answers carry passwords: no cache, proxy or browser may keep them.
const API_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;

/**
 * Headers of a JSON answer. Plain records shared by every answer: node:http writes them as they
 * are, where a `Headers` object is created and converted again on every request.
 */
export const JSON_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  ...API_HEADERS,
};

/** Headers of a text answer (`OK` of the delete operations). */
export const TEXT_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/plain; charset=UTF-8',
  ...API_HEADERS,
};

/** The body of every error answer. */
export interface ErrorBody {
  /** What went wrong, for people. Never a key, a password or a written value. */
  readonly err: string;
  /** What went wrong, for programs: a `VaultErrorCode`. */
  readonly code: string;
  /** Why, finer than the code, where the server knows (`key_revoked`). */
  readonly reason?: VaultErrorReason | undefined;
}

/**
 * A handler's answer that is a file's bytes with their own headers, not JSON (read/files): a
 * stream, written as it is read, whose `Content-Length` is in the headers.
 */
export class FileBody {
  readonly bytes: Readable;
  readonly headers: Readonly<Record<string, string>>;

  constructor(bytes: Readable, headers: Readonly<Record<string, string>>) {
    this.bytes = bytes;
    this.headers = headers;
  }
}

/**
 * An answer with its `Content-Length`: without it, node:http frames the body in chunks, which
 * costs a larger write.
 *
 * @param status The HTTP status.
 * @param headers The headers.
 * @param body The body.
 * @returns The answer.
 */
export function answer(status: number, headers: Readonly<Record<string, string>>, body: string): ApiAnswer {
  return { status, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, body };
}

/**
 * A JSON error answer. Its text echoes what the client sent (a login, a value that did not decode):
 * control and bidirectional characters in it are neutralised here, the one way out of every error,
 * so that no echo can reorder, hide or break what a client shows.
 *
 * @param status The HTTP status.
 * @param body The error.
 * @param headers Extra headers (`retry-after`).
 * @returns The answer.
 */
export function errorAnswer(
  status: number,
  body: ErrorBody,
  headers: Readonly<Record<string, string>> = {},
): ApiAnswer {
  return answer(
    status,
    { ...JSON_HEADERS, ...headers },
    JSON.stringify({
      err: neutralizeText(body.err),
      code: body.code,
      ...(body.reason === undefined ? {} : { reason: body.reason }),
    }),
  );
}

/**
 * The answer of a handler's body: a file, text, or JSON.
 *
 * @param body What the handler answered.
 * @returns The answer.
 */
export function answerOf(body: unknown): ApiAnswer {
  if (body instanceof FileBody) return { status: 200, headers: body.headers, body: body.bytes };
  if (typeof body === 'string') return answer(200, TEXT_HEADERS, body);
  return answer(200, JSON_HEADERS, JSON.stringify(body));
}

/**
 * An answer as a fetch `Response` (for the Hono app).
 *
 * @param answer The answer.
 * @returns The response.
 */
export function toResponse(answer: ApiAnswer): Response {
  const body =
    typeof answer.body === 'string'
      ? answer.body
      : answer.body instanceof Readable
        ? // One chunk queued: by default the web stream would queue the stream's high-water mark in
          // chunks, reading a whole attachment ahead of the socket.
          (Readable.toWeb(answer.body, { strategy: { highWaterMark: 1 } }) as ReadableStream<Uint8Array>)
        : // A Uint8Array is a valid body; its type is narrowed for lib.dom's BodyInit.
          new Uint8Array(answer.body);
  return new Response(body, { status: answer.status, headers: answer.headers });
}
