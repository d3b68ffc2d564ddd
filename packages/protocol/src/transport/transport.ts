/**
 * The one transport under both dialects: sends one request and hands its answer to the dialect's
 * reader. It owns what both dialects share: the time limit (headers and body), the body size
 * limit, retries of reads on network errors and gateway answers with backoff (writes never), a
 * 429 waited out for as long as `Retry-After` says within a bound, cancellation, the errors of a
 * call that got no answer, and the redacted request events. What a dialect's answers mean (the
 * legacy API's `{"err":…}` bodies, TeamPass 3's problem+json, their wordings) is the reader's
 * business: `legacy/attempt.ts` for the legacy API, `teampass3/caller.ts` for TeamPass 3.
 *
 * Each exchange goes over `exchange.ts`: a `fetch` in browsers or when the caller passes one, and
 * Node's HTTP client on Node otherwise (`node-exchange.ts`: Node's `fetch` costs about as much CPU
 * to load as Node's own start, and more per request). Retries are this module's own loop (it
 * once used ofetch's, which decides on the status alone, with a delay that no signal cuts short,
 * and needs the fetch globals): one timer per attempt covers the headers and the body, the
 * backoff between attempts is abortable, and a 429 is waited out apart from network retries.
 *
 * @module
 */

import { type Redactor, VaultError } from '../errors.ts';
import { sleep as abortableSleep } from '../internal/abort.ts';
import { parseRetryAfter } from '../internal/retry-after.ts';
import { innermost, thrownWords } from '../internal/thrown.ts';
import type { EndpointName } from '../legacy/endpoints.ts';
import type { TeamPass3EndpointName } from '../teampass3/endpoints.ts';
import { type Exchange, fetchExchange, type HeaderLookup, platformFetch, type Reply } from './exchange.ts';
import { nodeBuiltins, nodeExchange } from './node-exchange.ts';

export { type HeaderLookup, platformFetch } from './exchange.ts';

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
  /**
   * The `fetch` to send with. Absent, or {@link platformFetch}: Node's HTTP client on Node, the
   * global `fetch` elsewhere.
   */
  fetch?: typeof globalThis.fetch | undefined;
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
  readonly headers: HeaderLookup;
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
  retryable?: ((response: Pick<Answer, 'status' | 'headers'>) => boolean) | undefined;
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

/** The exchange of some settings: the `fetch` given, else Node's HTTP client where there is one. */
function exchangeOf(fetch: typeof globalThis.fetch | undefined): Exchange {
  const viaFetch = fetchExchange(fetch ?? platformFetch);
  if (fetch !== undefined && fetch !== platformFetch) return viaFetch;
  const load = nodeBuiltins();
  return load ? nodeExchange(load, viaFetch) : viaFetch;
}

/**
 * Creates a transport.
 *
 * @param settings Fetch, limits and reporting.
 * @returns The transport.
 */
export function createTransport(settings: TransportSettings): Transport {
  const exchange = exchangeOf(settings.fetch);
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

  /**
   * One call's exchanges up to an answer worth reading: reads are retried on network errors and
   * gateway answers (as the reader allows), with backoff. Each attempt has its own time limit.
   */
  async function attempts(request: TransportRequest, reader: AnswerReader<unknown>): Promise<Answer> {
    const retries = request.read ? settings.retries : 0;
    for (let attempt = 0; ; attempt++) {
      const timer = new AttemptTimer(timeoutMs, request.signal);
      const left = retries - attempt;
      try {
        let reply: Reply;
        try {
          reply = await exchange({
            method: request.method,
            url: request.url,
            headers: request.headers,
            body: request.body,
            redirect: request.redirect ?? 'follow',
            signal: timer.signal,
          });
        } catch (error) {
          // An attempt that ran out of time, or was cancelled, is not retried.
          if (left <= 0 || timer.signal.aborted) throw error;
          timer.stop();
          await pause(retryDelayMs, attempt, request.signal);
          continue;
        }
        if (left > 0 && RETRY_STATUSES.includes(reply.status) && (reader.retryable?.(reply) ?? true)) {
          // Let go of the body now, so its connection is freed.
          reply.discard();
          timer.stop();
          await pause(retryDelayMs, attempt, request.signal);
          continue;
        }
        const bytes = await readBody(reply, maxResponseBytes, request, timer);
        return { status: reply.status, headers: reply.headers, bytes };
      } finally {
        timer.stop();
      }
    }
  }

  async function send<T>(request: TransportRequest, reader: AnswerReader<T>): Promise<T> {
    let waits = 0;
    for (;;) {
      const started = onRequest ? Date.now() : 0;
      let answer: Answer;
      try {
        answer = await attempts(request, reader);
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
 * The wait before a retry: the base delay doubled on each retry, with a little jitter. A
 * cancellation ends it; the next attempt then fails as cancelled.
 */
async function pause(baseMs: number, attempt: number, signal: AbortSignal | undefined): Promise<void> {
  const ms = baseMs * 2 ** attempt + Math.floor(Math.random() * baseMs * 0.25);
  if (ms > 0) await abortableSleep(ms, signal).catch(() => {});
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
 * One timer per attempt, covering the headers and the body: a signal that stays armed through the
 * body lets it be read whole and still be cut off.
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

/** Reads a body, at most `maxBytes` of it. */
async function readBody(
  reply: Reply,
  maxBytes: number,
  request: TransportRequest,
  timer: AttemptTimer,
): Promise<Uint8Array> {
  let read: Awaited<ReturnType<Reply['read']>>;
  try {
    read = await reply.read(maxBytes);
  } catch (error) {
    if (timer.expired) {
      throw new VaultError(
        'timeout',
        `${request.operation}: the body did not arrive within ${timer.timeoutMs} ms.`,
        { endpoint: request.endpoint, url: request.displayUrl, status: reply.status },
      );
    }
    throw error;
  }
  if ('tooLarge' in read) throw tooLarge(read.tooLarge, maxBytes, request, reply.status);
  return read.bytes;
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
