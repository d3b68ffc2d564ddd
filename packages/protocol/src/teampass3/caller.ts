/**
 * The TeamPass 3 caller: sends one operation of the table over ofetch and reads the answer. It
 * checks the input against the row's schema before sending (nothing is sent for bad input),
 * puts the parameters where the row says (query string or JSON body; `Content-Type` only with a
 * body, since TeamPass answers a bodiless JSON request with an empty 500), bounds the time and the
 * body size, retries reads on network errors and gateway errors, parses success bodies with the
 * row's schema, and turns problem+json answers, empty 500s and anything else into `VaultError`s
 * with the server's own words. It knows nothing of sessions: the token is passed in.
 *
 * @see ./README.md
 * @module
 */

import { createFetch, FetchError } from 'ofetch';
import * as v from 'valibot';
import { maskPasswords, type Redactor, VaultError, type VaultErrorCode } from '../errors.ts';
import { sleep } from '../internal/abort.ts';
import { checkBaseUrl } from '../internal/base-url.ts';
import { parseRetryAfter } from '../internal/retry-after.ts';
import { innermost, thrownWords } from '../internal/thrown.ts';
import {
  type TeamPass3EndpointDefinition,
  type TeamPass3EndpointName,
  type TeamPass3Input,
  type TeamPass3Output,
  teampass3Endpoints,
} from './endpoints.ts';
import { TeamPass3ProblemSchema } from './schemas.ts';

/** A redacted record of one HTTP exchange, for request logs: never a secret, never a body. */
export interface TeamPass3RequestEvent {
  /** The operation's name in the table. */
  endpoint: TeamPass3EndpointName;
  /** The HTTP method. */
  method: string;
  /** The URL, redacted (it never carries credentials: they travel in bodies and headers). */
  url: string;
  /** The HTTP status, when a response arrived. */
  status: number | undefined;
  /** How long it took, in ms. */
  durationMs: number;
  /** The error's code, when it failed. */
  errorCode: string | undefined;
}

/** Options of {@link createTeamPass3Caller}. */
export interface TeamPass3CallerOptions {
  /** The server's base URL (the part before `/api/index.php`); a URL naming the API path is accepted. */
  baseUrl: string;
  /** The API's path under the base URL. Default `/api/index.php`. */
  apiPath?: string | undefined;
  /** The `fetch` under ofetch; the global one by default. */
  fetch?: typeof globalThis.fetch | undefined;
  /** Time allowed for one attempt, headers and body, in ms. Default 10 000. */
  timeoutMs?: number | undefined;
  /** How many times a read is retried on network errors and 502/503/504 without a problem body. Default 2. */
  retries?: number | undefined;
  /** The first retry's delay in ms, doubled on each retry. Default 200. */
  retryDelayMs?: number | undefined;
  /** The largest answer read, in bytes. Default 64 MiB. */
  maxResponseBytes?: number | undefined;
  /** Extra request headers (a proxy's). */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Removes secrets from everything reported. */
  redact: Redactor;
  /** Receives a redacted record of every exchange. */
  onRequest?: ((event: TeamPass3RequestEvent) => void) | undefined;
}

/** Per-call options. */
export interface TeamPass3CallOptions {
  /** The JWT, for rows that need one. */
  token?: string | undefined;
  /** Cancels the call. */
  signal?: AbortSignal | undefined;
}

/** A successful answer. */
export interface TeamPass3Success<K extends TeamPass3EndpointName> {
  /** Success. */
  ok: true;
  /** The HTTP status (200, or 201 for creates). */
  status: number;
  /** The body, parsed with the row's schema. */
  data: TeamPass3Output<K>;
  /** `X-Total-Count`, when sent. */
  total: number | undefined;
}

/** A failed call, as a value. */
export interface TeamPass3Failure {
  /** Failure. */
  ok: false;
  /** The HTTP status, when a response arrived. */
  status: number | undefined;
  /** The error to throw. */
  error: VaultError;
  /** For a 429: the wait the server asked for (`Retry-After`), in ms. */
  retryAfterMs: number | undefined;
}

/** What {@link TeamPass3Caller.send} resolves to. */
export type TeamPass3Result<K extends TeamPass3EndpointName> = TeamPass3Success<K> | TeamPass3Failure;

/** Sends operations of the TeamPass 3 table. */
export interface TeamPass3Caller {
  /** The base URL. */
  readonly baseUrl: string;
  /**
   * Sends an operation and resolves to its outcome, failures included (for the session's
   * decisions on 401 and 429).
   *
   * @param name The operation.
   * @param input Its parameters.
   * @param options The token and a signal.
   * @returns The outcome.
   */
  send<K extends TeamPass3EndpointName>(
    name: K,
    input: TeamPass3Input<K>,
    options?: TeamPass3CallOptions,
  ): Promise<TeamPass3Result<K>>;
  /**
   * Checks an operation's input against its row, without sending anything.
   *
   * @param name The operation.
   * @param input Its parameters.
   * @returns The error `send` would resolve to, or `undefined` when the input is fine.
   */
  validate<K extends TeamPass3EndpointName>(name: K, input: TeamPass3Input<K>): VaultError | undefined;
  /**
   * Sends an operation.
   *
   * @param name The operation.
   * @param input Its parameters.
   * @param options The token and a signal.
   * @returns The parsed body.
   * @throws {VaultError} For every failure.
   */
  call<K extends TeamPass3EndpointName>(
    name: K,
    input: TeamPass3Input<K>,
    options?: TeamPass3CallOptions,
  ): Promise<TeamPass3Output<K>>;
}

const DEFAULTS = {
  apiPath: '/api/index.php',
  timeoutMs: 10_000,
  retries: 2,
  retryDelayMs: 200,
  maxResponseBytes: 64 * 1024 * 1024,
};

const utf8 = /* @__PURE__ */ new TextDecoder();

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

/** What came back: the status, the headers that matter and the body's text. */
interface Received {
  status: number;
  contentType: string;
  total: string | null;
  retryAfter: string | null;
  location: string | null;
  text: string;
}

interface Origin {
  name: TeamPass3EndpointName;
  row: TeamPass3EndpointDefinition;
  url: string;
}

async function exchange(
  $fetch: ReturnType<typeof createFetch>,
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
  maxBytes: number,
  signal: AbortSignal | undefined,
): Promise<Received> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await $fetch.raw(url, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      responseType: 'stream',
      retry: false,
      redirect: 'manual',
      ignoreResponseError: true,
      signal: combined,
    });
  } catch (error) {
    if (error instanceof FetchError && error.response) response = error.response;
    else throw error;
  }
  const text = await readText(response, maxBytes);
  return {
    status: response.status,
    contentType: (response.headers.get('content-type') ?? '').toLowerCase(),
    total: response.headers.get('x-total-count'),
    retryAfter: response.headers.get('retry-after'),
    location: response.headers.get('location'),
    text,
  };
}

/** Thrown when an answer is larger than allowed. */
class TooLargeError extends Error {
  override name = 'TooLargeError';
}

async function readText(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new TooLargeError(String(declared));
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new TooLargeError(String(total));
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return utf8.decode(bytes);
}

function interpret<K extends TeamPass3EndpointName>(
  received: Received,
  origin: Origin,
  redact: Redactor,
): TeamPass3Result<K> {
  const { status, text } = received;
  const { row, name, url } = origin;
  const base = { status, endpoint: name, url };
  if (status >= 200 && status < 300) {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      return failure(
        new VaultError(
          'invalid_response',
          `${row.operation} expected JSON, received ${describeBody(text)} (HTTP ${status}).`,
          { ...base, excerpt: excerptOf(text, redact) },
        ),
        status,
      );
    }
    const parsed = v.safeParse(row.schema, data);
    if (!parsed.success) {
      return failure(
        new VaultError(
          'invalid_response',
          redact(`${row.operation} answered a body of an unexpected shape: ${describeIssue(parsed.issues)}.`),
          { ...base, issues: parsed.issues.map(summarizeIssue), excerpt: excerptOf(text, redact) },
        ),
        status,
      );
    }
    const total = received.total === null ? undefined : Number.parseInt(received.total, 10);
    return {
      ok: true,
      status,
      data: parsed.output as TeamPass3Output<K>,
      total: total !== undefined && Number.isFinite(total) ? total : undefined,
    };
  }
  if (status >= 300 && status < 400) {
    const location = received.location ? ` to ${redact(received.location)}` : '';
    return failure(
      new VaultError(
        'invalid_request',
        `${row.operation}: the server redirects${location} (HTTP ${status}); use the URL it redirects to as the base URL.`,
        base,
      ),
      status,
    );
  }
  const retryAfterMs = status === 429 ? parseRetryAfter(received.retryAfter) : undefined;
  if (text.trim() === '') {
    return failure(
      new VaultError(
        status >= 500 ? 'server' : codeOfStatus(status),
        `${row.operation} failed with HTTP ${status} and an empty body (TeamPass answers so for a malformed request body and for some of its own errors).`,
        { ...base, retryAfterMs },
      ),
      status,
      retryAfterMs,
    );
  }
  let problem: v.InferOutput<typeof TeamPass3ProblemSchema> | undefined;
  try {
    const result = v.safeParse(TeamPass3ProblemSchema, JSON.parse(text));
    if (result.success) problem = result.output;
  } catch {
    problem = undefined;
  }
  if (!problem) {
    return failure(
      new VaultError(
        codeOfStatus(status),
        `${row.operation} failed with HTTP ${status}: expected a problem+json body, received ${describeBody(text)}.`,
        { ...base, excerpt: excerptOf(text, redact), retryAfterMs },
      ),
      status,
      retryAfterMs,
    );
  }
  const words = redact(problem.detail);
  const firstLine = words.split(/\r?\n/)[0]!.trim();
  const short = firstLine.length > 200 ? `${firstLine.slice(0, 199)}…` : firstLine;
  return failure(
    new VaultError(
      classifyTeamPass3Error(status, words),
      `${row.operation} failed: ${short} (HTTP ${status}).`,
      {
        ...base,
        serverMessage: words,
        reason: /HTTPS is required/i.test(words) ? 'https_required' : undefined,
        retryAfterMs,
      },
    ),
    status,
    retryAfterMs,
  );
}

function invalidInput(
  row: TeamPass3EndpointDefinition,
  name: TeamPass3EndpointName,
  issues: readonly v.BaseIssue<unknown>[],
  redact: Redactor,
): VaultError {
  return new VaultError(
    'invalid_request',
    redact(`${row.operation}: ${describeIssue(issues)}; nothing was sent.`),
    {
      endpoint: name,
      issues: issues.map(summarizeIssue),
    },
  );
}

function failure(error: VaultError, status?: number, retryAfterMs?: number): TeamPass3Failure {
  return { ok: false, status: status ?? error.status, error, retryAfterMs };
}

/** What TeamPass 3's words mean, checked before the status. */
const WORDS: ReadonlyArray<readonly [RegExp, VaultErrorCode]> = [
  [/API usage is not allowed|OAuth2 API access is disabled/i, 'api_disabled'],
  [/already exists|Duplicates are not allowed/i, 'duplicate_label'],
  [/Rate limit exceeded/i, 'rate_limited'],
  [/too long/i, 'too_large'],
];

function codeOfStatus(status: number): VaultErrorCode {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 413 || status === 414) return 'too_large';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server';
  return 'invalid_request';
}

/**
 * The error code of a TeamPass 3 problem answer: from its words where they say more than the
 * status (`API usage is not allowed` → `api_disabled`, `Similar item already exists` →
 * `duplicate_label`), from the status otherwise (400, 405, 409, 422 → `invalid_request`, 401 →
 * `unauthorized`, 403 → `forbidden`, 404 → `not_found`, 429 → `rate_limited`, 5xx → `server`).
 *
 * @param status The HTTP status.
 * @param detail The problem's `detail`.
 * @returns The code.
 */
export function classifyTeamPass3Error(status: number, detail: string): VaultErrorCode {
  for (const [pattern, code] of WORDS) if (pattern.test(detail)) return code;
  return codeOfStatus(status);
}

function toQuery(params: unknown): string {
  const search = new URLSearchParams();
  if (typeof params === 'object' && params !== null) {
    for (const [key, value] of Object.entries(params)) {
      if (value === undefined || value === null) continue;
      search.append(key, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
    }
  }
  return search.toString();
}

function describeIssue(issues: readonly v.BaseIssue<unknown>[]): string {
  const issue = deepest(issues);
  const path = issue?.path?.map((item) => String(item.key)).join('.') ?? '';
  return `${path ? `${path}: ` : ''}${issue?.expected ? `expected ${issue.expected}` : (issue?.message ?? 'invalid')}`;
}

function deepest(issues: readonly v.BaseIssue<unknown>[]): v.BaseIssue<unknown> | undefined {
  let best: v.BaseIssue<unknown> | undefined;
  for (const issue of issues) {
    const candidate = (issue.issues && deepest(issue.issues)) || issue;
    if (!best || (candidate.path?.length ?? 0) > (best.path?.length ?? 0)) best = candidate;
  }
  return best;
}

/** An issue without the value it was raised on (values may be passwords). */
function summarizeIssue(issue: v.BaseIssue<unknown>): Record<string, unknown> {
  return {
    kind: issue.kind,
    type: issue.type,
    path: issue.path?.map((item) => item.key) ?? [],
    expected: issue.expected,
  };
}

function describeBody(text: string): string {
  const trimmed = text.trimStart();
  if (trimmed === '') return 'an empty body';
  if (/^<(!doctype|html|br|b>|\?xml|h1)/i.test(trimmed)) return 'an HTML page';
  return 'text that is not JSON';
}

function excerptOf(text: string, redact: Redactor): string {
  const flat = maskPasswords(redact(text))
    .replace(/"(pwd|totp|token|extension_key)"\s*:\s*"(?:[^"\\]|\\.)*"/g, '"$1":"[REDACTED]"')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > 160 ? `${flat.slice(0, 160)}…` : flat;
}

function fromThrown(
  error: unknown,
  origin: Origin,
  redact: Redactor,
  signal: AbortSignal | undefined,
  timeoutMs: number,
  maxBytes: number,
): VaultError {
  const operation = origin.row.operation;
  const base = { endpoint: origin.name, url: origin.url };
  if (error instanceof TooLargeError) {
    return new VaultError(
      'too_large',
      `${operation}: the answer is larger than the limit of ${maxBytes} bytes (${error.message} bytes).`,
      base,
    );
  }
  const root = innermost(error);
  const name = root instanceof Error ? root.name : '';
  const words = redact(thrownWords(root));
  const cause = new Error(words);
  cause.name = name || 'Error';
  if (signal?.aborted && !(signal.reason instanceof Error && signal.reason.name === 'TimeoutError'))
    return new VaultError('aborted', `${operation} was cancelled.`, { ...base, cause });
  if (name === 'TimeoutError' || /timeout|timed out/i.test(words))
    return new VaultError('timeout', `${operation}: the vault did not answer within ${timeoutMs} ms.`, {
      ...base,
      cause,
    });
  return new VaultError('network', `${operation}: could not reach the vault (${words}).`, { ...base, cause });
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
