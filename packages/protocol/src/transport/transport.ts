/**
 * The one transport under both dialects: sends one request over ofetch and hands its answer to
 * the dialect's reader. It owns what both dialects share: the time limit (headers and body), the
 * body size limit, retries of reads on network errors and gateway answers with backoff (writes
 * never), a 429 waited out for as long as `Retry-After` says within a bound, cancellation, the
 * errors of a call that got no answer, and the redacted request events. What a dialect's answers
 * mean (the legacy API's `{"err":…}` bodies, TeamPass 3's problem+json, their wordings) is the
 * reader's business: `legacy/attempt.ts` for the legacy API, `teampass3/caller.ts` for TeamPass 3.
 *
 * What ofetch does itself: the retries of reads (`retry`, `retryDelay`, `retryStatusCodes`, with
 * `onResponseError` letting a dialect keep an answer from being retried). What it cannot do, done
 * here: its `timeout` stops at the headers and is off whenever a signal is passed (so one timer
 * per attempt covers headers and body, and is restarted by `retryDelay`); it reads bodies whole
 * without a limit (so bodies are read here, counted); and its retry decides on the status alone,
 * with a delay that no signal cuts short and no upper bound, while a 429 must wait as long as the
 * server says, only up to a bound, abortably, and be counted apart from network retries (so 429s
 * are waited out here, around ofetch).
 *
 * @module
 */

import { createFetch, type FetchContext, FetchError } from 'ofetch';
import { type Redactor, VaultError } from '../errors.ts';
import { sleep as abortableSleep } from '../internal/abort.ts';
import { parseRetryAfter } from '../internal/retry-after.ts';
import { innermost, thrownWords } from '../internal/thrown.ts';
import type { EndpointName } from '../legacy/endpoints.ts';
import type { TeamPass3EndpointName } from '../teampass3/endpoints.ts';

/** A redacted record of one call, for request logs: never a key, password or token, never a write's values. */
export interface RequestEvent {
  /** The operation's name in the table of the dialect spoken (`readItems`; on TeamPass 3 `getItem`, `authorize`, …). */
  endpoint: EndpointName | TeamPass3EndpointName;
  /** The HTTP method. */
  method: string;
  /** The URL with the key and secret segments replaced by `[REDACTED]`. */
  url: string;
  /** The HTTP status, when a response arrived. */
  status: number | undefined;
  /** How long it took, in ms. */
  durationMs: number;
  /** The error's code, when it failed. */
  errorCode: string | undefined;
}

/** How 429s are waited out. */
export interface RateLimitPolicy {
  /** How many 429s one call waits out before failing with `rate_limited`. */
  readonly retries: number;
  /** The longest single wait, in ms; a longer `Retry-After` fails at once. */
  readonly maxRetryAfterMs: number;
  /** How to wait; an abortable timer by default. */
  readonly sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
}

/** What {@link createTransport} needs: the same settings for both dialects. */
export interface TransportSettings {
  /** The `fetch` under ofetch. */
  fetch: typeof globalThis.fetch;
  /** Time allowed for one attempt, headers and body, in ms. */
  timeoutMs: number;
  /** How many times a read is retried on network errors and gateway answers. */
  retries: number;
  /** The first retry's delay in ms; doubled on each retry. */
  retryDelayMs: number;
  /** The largest response body read, in bytes. */
  maxResponseBytes: number;
  /** How 429s are waited out. Default {@link DEFAULT_RATE_LIMIT}. */
  rateLimit?: RateLimitPolicy | undefined;
  /** Removes secrets from anything reported. */
  redact: Redactor;
  /** Receives a redacted record of every exchange. */
  onRequest?: ((event: RequestEvent) => void) | undefined;
}

/** One request, ready to send. */
export interface TransportRequest {
  /** The operation's name in its dialect's table: for events and errors. */
  endpoint: RequestEvent['endpoint'];
  /** The operation in words (`read/items`, `item/get`): for messages. */
  operation: string;
  /** The HTTP method. */
  method: string;
  /** The URL sent. */
  url: string;
  /** The same URL with every secret replaced by `[REDACTED]`: for events and errors. */
  displayUrl: string;
  /** The request headers. */
  headers: Record<string, string>;
  /** The body, when the operation has one. */
  body?: string | FormData | undefined;
  /** Whether the operation only reads: only reads are retried on network errors and 5xx. */
  read: boolean;
  /** `manual` to hand redirects to the reader instead of following them. */
  redirect?: 'manual' | undefined;
  /** Cancels the call. */
  signal?: AbortSignal | undefined;
}

/** An answer, read whole within the limits. */
export interface Answer {
  /** The HTTP status. */
  readonly status: number;
  /** The response headers. */
  readonly headers: Headers;
  /** The body. */
  readonly bytes: Uint8Array;
}

/** What a dialect plugs into the transport for one operation. */
export interface AnswerReader<T> {
  /**
   * Reads an answer.
   *
   * @returns The value.
   * @throws {VaultError} For error answers, with the server's words (redacted).
   */
  read(answer: Answer): T;
  /**
   * Whether a read's 408/500/502/503/504 answer may be retried; all may when absent (TeamPass 3
   * keeps its own problem+json answers from being retried).
   */
  retryable?: ((response: Response) => boolean) | undefined;
}

/** Sends requests. */
export interface Transport {
  /**
   * Sends a request (with its retries and 429 waits) and reads the answer with the reader.
   *
   * @param request The request.
   * @param reader The dialect's reading of the answer.
   * @returns What the reader made of it.
   * @throws {VaultError} For every failure: the reader's, or one of the transport (`network`,
   *   `timeout`, `aborted`, `too_large`, `rate_limited` after the waits allowed).
   */
  send<T>(request: TransportRequest, reader: AnswerReader<T>): Promise<T>;
}

/** Statuses on which reads are retried (429 is not: it is waited out, or not, by `Retry-After`). */
const RETRY_STATUSES = [408, 500, 502, 503, 504];

/** How 429s are waited out unless told: twice at most, each wait at most 30 s. */
export const DEFAULT_RATE_LIMIT: RateLimitPolicy = { retries: 2, maxRetryAfterMs: 30_000 };

/** The wait of a 429 that does not say how long. */
const DEFAULT_RATE_LIMIT_WAIT_MS = 1000;

/**
 * Creates a transport.
 *
 * @param settings Fetch, limits and reporting.
 * @returns The transport.
 */
export function createTransport(settings: TransportSettings): Transport {
  const $fetch = createFetch({ fetch: settings.fetch });
  const { onRequest, timeoutMs, retryDelayMs, maxResponseBytes } = settings;
  const rateLimit = settings.rateLimit ?? DEFAULT_RATE_LIMIT;
  const wait = rateLimit.sleep ?? abortableSleep;

  /** Reports one exchange, when someone listens. */
  function report(
    request: TransportRequest,
    started: number,
    status: number | undefined,
    errorCode?: string,
  ) {
    onRequest?.({
      endpoint: request.endpoint,
      method: request.method,
      url: request.displayUrl,
      status,
      durationMs: Date.now() - started,
      errorCode,
    });
  }

  async function send<T>(request: TransportRequest, reader: AnswerReader<T>): Promise<T> {
    let waits = 0;
    for (;;) {
      const started = onRequest ? Date.now() : 0;
      let answer: Answer;
      try {
        // One exchange: ofetch with its retries, then the body within the limits.
        const retries = request.read ? settings.retries : 0;
        const timer = new AttemptTimer(timeoutMs, request.signal);
        try {
          let response: Response;
          try {
            response = await $fetch.raw(request.url, {
              method: request.method,
              headers: request.headers,
              body: request.body,
              redirect: request.redirect ?? 'follow',
              // Answers hold secrets: a browser must not keep them in its disk cache.
              cache: 'no-store',
              responseType: 'stream',
              retry: retries > 0 ? retries : false,
              retryStatusCodes: RETRY_STATUSES,
              retryDelay: (context: FetchContext) => {
                timer.restart();
                return backoff(retryDelayMs, retries, context.options.retry);
              },
              signal: timer.signal,
              // An attempt that ran out of time is not retried: its signal stays aborted.
              onRequestError: (context: FetchContext) => {
                if (timer.expired) context.options.retry = false;
              },
              onResponseError: (context: FetchContext) => beforeRetry(context, reader),
            });
          } catch (error) {
            // Statuses ≥ 400 arrive as FetchError with the response: read them like any other.
            if (error instanceof FetchError && error.response) response = error.response;
            else throw error;
          }
          const bytes = await readBody(response, maxResponseBytes, request, timer);
          answer = { status: response.status, headers: response.headers, bytes };
        } finally {
          timer.stop();
        }
      } catch (error) {
        const failure = error instanceof VaultError ? error : fromThrown(error, request, settings);
        report(request, started, undefined, failure.code);
        throw failure;
      }
      const status = answer.status;
      let retryAfterMs: number | undefined;
      if (status === 429) {
        retryAfterMs = parseRetryAfter(answer.headers.get('retry-after'));
        const asked = retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS;
        if (waits < rateLimit.retries && asked <= rateLimit.maxRetryAfterMs) {
          report(request, started, status, 'rate_limited');
          waits++;
          await wait(asked, request.signal);
          if (request.signal?.aborted) throw cancelled(request);
          continue;
        }
      }
      try {
        const value = reader.read(answer);
        report(request, started, status);
        return value;
      } catch (error) {
        let failure = error instanceof VaultError ? error : fromThrown(error, request, settings);
        if (status === 429 && failure.code === 'rate_limited')
          failure = notWaited(failure, retryAfterMs, waits, rateLimit);
        report(request, started, status, failure.code);
        throw failure;
      }
    }
  }

  return { send };
}

/**
 * Before ofetch retries an answer: lets the dialect keep it (its own error answers are not
 * retried), and lets go of the body of one that is retried, so its socket is freed now.
 */
function beforeRetry(context: FetchContext, reader: AnswerReader<unknown>): void {
  const response = context.response;
  const left = context.options.retry;
  if (!response || typeof left !== 'number' || left <= 0 || !RETRY_STATUSES.includes(response.status)) return;
  if (reader.retryable && !reader.retryable(response)) {
    context.options.retry = false;
    return;
  }
  response.body?.cancel().catch(() => {});
}

function backoff(baseMs: number, retries: number, remaining: unknown): number {
  const left = typeof remaining === 'number' ? remaining : retries;
  const attempt = Math.max(0, retries - left);
  return baseMs * 2 ** attempt + Math.floor(Math.random() * baseMs * 0.25);
}

/** The `rate_limited` error of a 429 not waited out, saying why. */
function notWaited(
  error: VaultError,
  retryAfterMs: number | undefined,
  waits: number,
  policy: RateLimitPolicy,
): VaultError {
  const asked = retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS;
  const seconds = (ms: number) => `${Math.ceil(ms / 1000)} s`;
  const after = retryAfterMs === undefined ? '' : ` The server asks to wait ${seconds(asked)}.`;
  // Waited out already, or a wait longer than this client waits (or no wait allowed): say which.
  const why =
    waits > 0
      ? `still limited after ${waits} wait${waits === 1 ? '' : 's'}`
      : policy.retries > 0 && asked > policy.maxRetryAfterMs
        ? `not waited: the wait asked is longer than the ${seconds(policy.maxRetryAfterMs)} this client waits`
        : 'not waited';
  return error.with({
    message: `${error.message.replace(/\.$/, '')}; ${why}.${after}`,
    retryAfterMs,
    cause: error,
  });
}

/**
 * One timer per attempt, covering the headers and the body: ofetch's own timeout stops at the
 * headers (and is off when a signal is passed), and a signal that stays armed through the body
 * lets it be read with `arrayBuffer()`, far cheaper than a stream reader, and still be cut off.
 * Restarted before each retry.
 */
class AttemptTimer {
  /** Whether the attempt ran out of time. */
  expired = false;
  /** The signal to pass to fetch. */
  readonly signal: AbortSignal;
  /** The time allowed, in ms. */
  readonly timeoutMs: number;
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(timeoutMs: number, callerSignal: AbortSignal | undefined) {
    this.timeoutMs = timeoutMs;
    this.signal = callerSignal
      ? AbortSignal.any([callerSignal, this.controller.signal])
      : this.controller.signal;
    this.restart();
  }

  /** Starts the clock again, for a retry. */
  restart(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.expired = true;
      const reason = new Error('The operation was aborted due to timeout');
      reason.name = 'TimeoutError';
      this.controller.abort(reason);
    }, this.timeoutMs);
  }

  /** Disarms the timer. */
  stop(): void {
    clearTimeout(this.timer);
  }
}

/** Reads a body, at most `maxBytes` of it: whole when its length is declared, counted otherwise. */
async function readBody(
  response: Response,
  maxBytes: number,
  request: TransportRequest,
  timer: AttemptTimer,
): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(declared, maxBytes, request, response.status);
  }
  if (!response.body) return new Uint8Array(0);
  try {
    if (declared >= 0) return new Uint8Array(await response.arrayBuffer());
    const reader = response.body.getReader();
    const chunks: Uint8Array[] = [];
    let total = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.byteLength;
        if (total > maxBytes) throw tooLarge(total, maxBytes, request, response.status);
        chunks.push(value);
      }
    } catch (error) {
      await reader.cancel().catch(() => {});
      throw error;
    }
    return concat(chunks, total);
  } catch (error) {
    if (timer.expired) {
      throw new VaultError(
        'timeout',
        `${request.operation}: the body did not arrive within ${timer.timeoutMs} ms.`,
        { endpoint: request.endpoint, url: request.displayUrl, status: response.status },
      );
    }
    throw error;
  }
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

function tooLarge(size: number, maxBytes: number, request: TransportRequest, status: number): VaultError {
  return new VaultError(
    'too_large',
    `${request.operation}: the answer is larger than the limit of ${maxBytes} bytes (${size} bytes so far).`,
    { endpoint: request.endpoint, url: request.displayUrl, status },
  );
}

function cancelled(request: TransportRequest): VaultError {
  return new VaultError('aborted', `${request.operation} was cancelled.`, {
    endpoint: request.endpoint,
    url: request.displayUrl,
  });
}

/** The error of a call that threw instead of answering: cancelled, out of time, or unreachable. */
function fromThrown(error: unknown, request: TransportRequest, settings: TransportSettings): VaultError {
  const root = innermost(error);
  const name = root instanceof Error ? root.name : '';
  const words = settings.redact(thrownWords(root));
  const cause = new Error(words);
  cause.name = name || 'Error';
  const base = { endpoint: request.endpoint, url: request.displayUrl, cause };
  const signal = request.signal;
  if (signal?.aborted && !(signal.reason instanceof Error && signal.reason.name === 'TimeoutError'))
    return new VaultError('aborted', `${request.operation} was cancelled.`, base);
  if (name === 'TimeoutError' || /timeout|timed out/i.test(words))
    return new VaultError(
      'timeout',
      `${request.operation}: the vault did not answer within ${settings.timeoutMs} ms.`,
      base,
    );
  return new VaultError('network', `${request.operation}: could not reach the vault (${words}).`, base);
}
