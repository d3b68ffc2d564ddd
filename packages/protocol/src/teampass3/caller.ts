/**
 * The TeamPass 3 caller: TeamPass 3's part of the one transport (`transport/transport.ts`). It
 * checks the input against the row's schema before sending (nothing is sent for bad input), puts
 * the parameters where the row says (query string or JSON body; `Content-Type` only with a body,
 * since TeamPass answers a bodiless JSON request with an empty 500), and reads the answer: success
 * bodies parsed with the row's schema, problem+json answers, empty 500s and anything else turned
 * into `VaultError`s with the server's own words, redirects never followed. The transport bounds
 * the time and the body size, retries reads on network errors and on gateway answers that are not
 * TeamPass's own JSON, and waits out 429s. It knows nothing of sessions: the token is passed in.
 *
 * Its parts live in `caller/`: `answers.ts` (reading an answer), `failures.ts` (error codes).
 *
 * @see ./README.md
 * @module
 */

import * as v from 'valibot';
import { VaultError } from '../errors.ts';
import { checkBaseUrl } from '../internal/base-url.ts';
import { type Answer, createTransport } from '../transport/transport.ts';
import { transportSettingsOf } from '../vault/options.ts';
import { failure, interpret, invalidInput } from './caller/answers.ts';
import type {
  Origin,
  TeamPass3Caller,
  TeamPass3CallerOptions,
  TeamPass3CallOptions,
  TeamPass3Result,
  TeamPass3Success,
} from './caller/types.ts';
import {
  type TeamPass3EndpointDefinition,
  type TeamPass3EndpointName,
  type TeamPass3Input,
  teampass3Endpoints,
} from './endpoints.ts';

export { classifyTeamPass3Error } from './caller/failures.ts';

export type {
  TeamPass3Caller,
  TeamPass3CallerOptions,
  TeamPass3CallOptions,
  TeamPass3Failure,
  TeamPass3RequestEvent,
  TeamPass3Result,
  TeamPass3Success,
} from './caller/types.ts';

const ACCEPT = 'application/json, application/problem+json;q=0.9, */*;q=0.5';

/** TeamPass's own JSON answers are final; a gateway's 502/503/504 page is worth another try. */
function retryable(response: Pick<Answer, 'status' | 'headers'>): boolean {
  return (
    response.status !== 500 &&
    response.status !== 408 &&
    !(response.headers.get('content-type') ?? '').toLowerCase().includes('json')
  );
}

/**
 * Creates a caller.
 *
 * @param options The server and the limits.
 * @returns The caller.
 * @example
 * ```ts
 * const caller = createTeamPass3Caller({ baseUrl: 'https://tp.example.com', redact: (t) => t });
 * const { token } = await caller.call('authorize', { login, password, apikey });
 * const folders = await caller.call('writableFolders', {}, { token });
 * ```
 */
export function createTeamPass3Caller(options: TeamPass3CallerOptions): TeamPass3Caller {
  const baseUrl = validateTeamPass3BaseUrl(options.baseUrl);
  const apiRoot = baseUrl + options.legacy.apiPath.replace(/\/+$/, '');
  const { redact } = options;
  const transport = createTransport(transportSettingsOf(options, redact));

  async function send<K extends TeamPass3EndpointName>(
    name: K,
    input: TeamPass3Input<K>,
    callOptions: TeamPass3CallOptions = {},
  ): Promise<TeamPass3Result<K>> {
    const row: TeamPass3EndpointDefinition = teampass3Endpoints[name];
    const parsed = v.safeParse(row.input, input);
    if (!parsed.success) return failure(invalidInput(row, name, parsed.issues, redact));
    const params = parsed.output;
    const query = row.params === 'query' ? toQuery(params) : '';
    const url = `${apiRoot}${row.path}${query ? `?${query}` : ''}`;
    const displayUrl = redact(url);
    const headers: Record<string, string> = { accept: ACCEPT, ...options.headers };
    if (row.auth === 'bearer' && callOptions.token) headers.authorization = `Bearer ${callOptions.token}`;
    let body: string | undefined;
    if (row.params === 'body') {
      body = JSON.stringify(params);
      headers['content-type'] = 'application/json';
    }
    const origin: Origin = { name, row, url: displayUrl };
    try {
      return await transport.send(
        {
          endpoint: name,
          operation: row.operation,
          method: row.method,
          url,
          displayUrl,
          headers,
          body,
          read: row.access === 'read',
          redirect: 'manual',
          signal: callOptions.signal,
        },
        {
          read: (answer): TeamPass3Success<K> => {
            const outcome = interpret<K>(answer, origin, redact);
            if (!outcome.ok) throw outcome.error;
            return outcome;
          },
          retryable,
        },
      );
    } catch (error) {
      if (error instanceof VaultError) return failure(error);
      throw error;
    }
  }

  return {
    baseUrl,
    send,
    validate(name, input) {
      const row: TeamPass3EndpointDefinition = teampass3Endpoints[name];
      const parsed = v.safeParse(row.input, input);
      return parsed.success ? undefined : invalidInput(row, name, parsed.issues, redact);
    },
    async call(name, input, callOptions) {
      const result = await send(name, input, callOptions);
      if (!result.ok) throw result.error;
      return result.data;
    },
  };
}

/** Parameters as a query string: booleans as `1`/`0`, absent values left out. */
export function toQuery(params: unknown): string {
  const search = new URLSearchParams();
  if (typeof params === 'object' && params !== null) {
    for (const [key, value] of Object.entries(params)) {
      if (value === undefined || value === null) continue;
      search.append(key, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
    }
  }
  return search.toString();
}

/**
 * Checks a TeamPass 3 base URL (`internal/base-url.ts`: no query, fragment or credentials); a URL
 * that already names `/api`, `/api/index.php` or `/api/index.php/v1` is cut back to the base.
 *
 * @param baseUrl The URL as given.
 * @returns The base URL without a trailing slash.
 * @throws {VaultError} `invalid_request` for anything else.
 */
export function validateTeamPass3BaseUrl(baseUrl: string): string {
  return checkBaseUrl(baseUrl, /\/api(\/index\.php)?(\/v1)?$/);
}
