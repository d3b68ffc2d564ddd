/**
 * The TeamPass 3 caller: sends one operation of the table over ofetch and reads the answer. It
 * checks the input against the row's schema before sending (nothing is sent for bad input),
 * puts the parameters where the row says (query string or JSON body; `Content-Type` only with a
 * body, since TeamPass answers a bodiless JSON request with an empty 500), bounds the time and the
 * body size, retries reads on network errors and gateway errors, parses success bodies with the
 * row's schema, and turns problem+json answers, empty 500s and anything else into `VaultError`s
 * with the server's own words. It knows nothing of sessions: the token is passed in.
 *
 * Its parts live in `caller/`: `exchange.ts` (one HTTP exchange), `answers.ts` (reading an
 * answer), `failures.ts` (error codes).
 *
 * @see ./README.md
 * @module
 */

import { createFetch } from 'ofetch';
import * as v from 'valibot';
import { sleep } from '../internal/abort.ts';
import { checkBaseUrl } from '../internal/base-url.ts';
import { failure, interpret, invalidInput } from './caller/answers.ts';
import { exchange, toQuery } from './caller/exchange.ts';
import { fromThrown } from './caller/failures.ts';
import type {
  TeamPass3Caller,
  TeamPass3CallerOptions,
  TeamPass3CallOptions,
  TeamPass3Result,
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

const DEFAULTS = {
  apiPath: '/api/index.php',
  timeoutMs: 10_000,
  retries: 2,
  retryDelayMs: 200,
  maxResponseBytes: 64 * 1024 * 1024,
};

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
  const apiRoot = baseUrl + (options.apiPath ?? DEFAULTS.apiPath).replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const retries = options.retries ?? DEFAULTS.retries;
  const retryDelayMs = options.retryDelayMs ?? DEFAULTS.retryDelayMs;
  const maxBytes = options.maxResponseBytes ?? DEFAULTS.maxResponseBytes;
  const { redact, onRequest } = options;
  const $fetch = createFetch({ fetch: options.fetch ?? globalThis.fetch.bind(globalThis) });

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
    const headers: Record<string, string> = {
      accept: 'application/json, application/problem+json;q=0.9, */*;q=0.5',
      ...options.headers,
    };
    if (row.auth === 'bearer' && callOptions.token) headers.authorization = `Bearer ${callOptions.token}`;
    let body: string | undefined;
    if (row.params === 'body') {
      body = JSON.stringify(params);
      headers['content-type'] = 'application/json';
    }
    const origin = { name, row, url: displayUrl };
    const attempts = row.access === 'read' ? retries + 1 : 1;
    for (let attempt = 1; ; attempt++) {
      const started = Date.now();
      const report = (status: number | undefined, errorCode: string | undefined) =>
        onRequest?.({
          endpoint: name,
          method: row.method,
          url: displayUrl,
          status,
          durationMs: Date.now() - started,
          errorCode,
        });
      let outcome: TeamPass3Result<K>;
      let retryable: boolean;
      try {
        const received = await exchange(
          $fetch,
          url,
          row.method,
          headers,
          body,
          timeoutMs,
          maxBytes,
          callOptions.signal,
        );
        outcome = interpret<K>(received, origin, redact);
        retryable =
          !outcome.ok && [502, 503, 504].includes(received.status) && !received.contentType.includes('json');
      } catch (error) {
        outcome = failure(fromThrown(error, origin, redact, callOptions.signal, timeoutMs, maxBytes));
        retryable = outcome.error.code === 'network';
      }
      report(outcome.status, outcome.ok ? undefined : outcome.error.code);
      if (outcome.ok || !retryable || attempt >= attempts || callOptions.signal?.aborted) return outcome;
      await sleep(retryDelayMs * 2 ** (attempt - 1), callOptions.signal);
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
