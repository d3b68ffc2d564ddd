/**
 * Requests and answers of the TeamPass 3 fake: how parameters are read (a JSON body first, then a
 * form body for POST, then the query string, as `BaseController::getQueryStringParams` does), and
 * the three kinds of answers (JSON, RFC 9457 problem, the empty-body 500 of an uncaught PHP
 * exception).
 *
 * @module
 */

import type { IncomingHttpHeaders } from 'node:http';
import {
  type PhpParams,
  type PhpValue,
  phpHtmlEntityDecode,
  phpJson,
  phpParseStr,
  phpTrimParams,
} from './php.ts';
import type { TeamPass3State } from './state.ts';
import type { TeamPass3StoredUser } from './types.ts';

/** The standard reason phrases TeamPass uses (`BaseController::HTTP_REASONS`). */
export const HTTP_REASONS: Readonly<Record<number, string>> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** An answer of the fake. */
export interface Answer {
  /** The status. */
  status: number;
  /** Headers besides the ones every answer carries. */
  headers: Record<string, string>;
  /** The body. */
  body: string;
}

/** Thrown where PHP would die with an uncaught exception: the answer is a 500 with an empty body. */
export class UncaughtPhpError extends Error {
  override name = 'UncaughtPhpError';
}

/**
 * A JSON answer, as the controllers send it (`Content-Type: application/json`, PHP's encoding).
 *
 * @param value The body.
 * @param status The status. Default 200.
 * @param headers Extra headers.
 * @returns The answer.
 */
export function json(value: unknown, status = 200, headers: Record<string, string> = {}): Answer {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: phpJson(value) };
}

/**
 * An RFC 9457 problem, as `sendProblem`/`errorHdl` send it: `{type, title, status, detail, error}`.
 *
 * @param status The status.
 * @param detail The words.
 * @param headers Extra headers (`Allow`, `Retry-After`).
 * @returns The answer.
 */
export function problem(status: number, detail: string, headers: Record<string, string> = {}): Answer {
  return {
    status,
    headers: { 'content-type': 'application/problem+json; charset=UTF-8', ...headers },
    body: phpJson({
      type: 'about:blank',
      title: HTTP_REASONS[status] ?? 'Error',
      status,
      detail,
      error: detail,
    }),
  };
}

/** The 500 with an empty body PHP answers for an uncaught exception. */
export function emptyServerError(): Answer {
  return { status: 500, headers: {}, body: '' };
}

/** The 405 the controllers answer for a wrong method. */
export function methodNotSupported(allow: string): Answer {
  return problem(405, 'Method not supported', { allow });
}

/** One request, as the handlers see it. */
export class RequestContext {
  /** The method, upper case. */
  readonly method: string;
  /** The path as received (not percent-decoded). */
  readonly path: string;
  /** The raw query string, without `?`. */
  readonly query: string;
  /** The headers. */
  readonly headers: IncomingHttpHeaders;
  /** The body. */
  readonly body: string;
  /** The client IP, as TeamPass's rate limit and lockout see it. */
  readonly ip: string;
  /** The route segments after the API path (and `v1`). */
  readonly segments: readonly string[];
  /** The state. */
  readonly state: TeamPass3State;
  /** The current time, in seconds. */
  readonly now: number;
  private params: PhpParams | undefined;

  /**
   * Creates a request context.
   *
   * @param init The request's parts.
   */
  constructor(init: {
    method: string;
    path: string;
    query: string;
    headers: IncomingHttpHeaders;
    body: string;
    ip: string;
    segments: readonly string[];
    state: TeamPass3State;
    now: number;
  }) {
    this.method = init.method;
    this.path = init.path;
    this.query = init.query;
    this.headers = init.headers;
    this.body = init.body;
    this.ip = init.ip;
    this.segments = init.segments;
    this.state = init.state;
    this.now = init.now;
  }

  /** Whether the body is JSON as Symfony tells it (`application/json` or `application/x-json`). */
  get isJson(): boolean {
    const type = (this.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    return type === 'application/json' || type === 'application/x-json';
  }

  /**
   * The parameters, read as TeamPass reads them: the JSON body as sent (an empty, malformed or
   * non-object body is an uncaught exception), else a non-empty form body of a POST (trimmed),
   * else the query string, entity-decoded then parsed (trimmed).
   *
   * @returns The parameters.
   * @throws {UncaughtPhpError} For a JSON body Symfony cannot turn into an array.
   */
  readParams(): PhpParams {
    if (this.params) return this.params;
    if (this.isJson) {
      if (this.body === '') throw new UncaughtPhpError('Request body is empty.');
      let data: unknown;
      try {
        data = JSON.parse(this.body);
      } catch {
        throw new UncaughtPhpError('Syntax error');
      }
      if (typeof data !== 'object' || data === null) throw new UncaughtPhpError('Expected an array.');
      if (hasLoneSurrogate(this.body)) throw new UncaughtPhpError('Single unpaired UTF-16 surrogate');
      this.params = Array.isArray(data)
        ? Object.fromEntries(data.map((value, index) => [String(index), toPhp(value)]))
        : toPhpParams(data);
      return this.params;
    }
    const type = (this.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (this.method === 'POST' && type === 'application/x-www-form-urlencoded') {
      const form = phpParseStr(this.body);
      if (Object.keys(form).length > 0) {
        this.params = phpTrimParams(form);
        return this.params;
      }
    }
    this.params = this.query === '' ? {} : phpTrimParams(phpParseStr(phpHtmlEntityDecode(this.query)));
    return this.params;
  }

  /** The query string's parameters alone (for the sign-in routes' "not in the URL" check). */
  queryParams(): PhpParams {
    return this.query === '' ? {} : phpParseStr(phpHtmlEntityDecode(this.query));
  }
}

/** The signed-in caller of a request, as the router hands it to a controller (`$userData`). */
export interface Caller {
  /** The user, read fresh for this request. */
  user: TeamPass3StoredUser;
  /** The login as signed in. */
  username: string;
  /** The token's id. */
  jti: string;
  /** The folders the user may see (`folders_list`). */
  folders: number[];
}

function hasLoneSurrogate(text: string): boolean {
  return /\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}/.test(
    text,
  );
}

function toPhp(value: unknown): PhpValue {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return value;
  if (Array.isArray(value)) return value.map(toPhp);
  if (typeof value === 'object') return toPhpParams(value);
  return null;
}

function toPhpParams(value: object): PhpParams {
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, toPhp(entry)]));
}
