/**
 * How the API answers: the headers every answer carries and the body of an error.
 *
 * @module
 */

// Answers carry passwords: no cache, proxy or browser may keep them.
const API_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;

/**
 * Headers of a JSON answer. Plain records shared by every answer: @hono/node-server writes them as
 * they are, where a `Headers` object is created and converted again on every request.
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
}

/**
 * A JSON error answer.
 *
 * @param status The HTTP status.
 * @param body The error.
 * @param headers Extra headers (`retry-after`).
 * @returns The response.
 */
export function errorResponse(
  status: number,
  body: ErrorBody,
  headers: Readonly<Record<string, string>> = {},
): Response {
  return new Response(JSON.stringify({ err: body.err, code: body.code }), {
    status,
    headers: { ...JSON_HEADERS, ...headers },
  });
}

/**
 * The answer of a handler's body: a ready response, text, or JSON.
 *
 * @param body What the handler answered.
 * @returns The response.
 */
export function respond(body: unknown): Response {
  if (body instanceof Response) return body;
  if (typeof body === 'string') return new Response(body, { headers: TEXT_HEADERS });
  return new Response(JSON.stringify(body), { headers: JSON_HEADERS });
}
