/**
 * One attempt over ofetch: sends a prepared request, retries reads on network errors and 5xx
 * with backoff (writes never), bounds the time (headers and body) and the body size, and maps
 * every answer or failure to a value or a {@link VaultError}. Knows nothing of batching or keys.
 *
 * @module
 */

import { createFetch, type FetchContext, FetchError } from 'ofetch';
import { type Redactor, toVaultError, VaultError } from '../errors.ts';
import { errorAnswer, excerptOf, interpretJson, type ResponseOrigin } from '../internal/response.ts';
import { parseRetryAfter, withRetryAfter } from '../internal/retry-after.ts';
import { innermost, thrownWords } from '../internal/thrown.ts';
import {
  type DownloadedFile,
  type EndpointDefinition,
  type EndpointName,
  endpoints,
} from '../legacy/endpoints.ts';
import type { CallOptions, RequestEvent } from './types.ts';

/** A request ready to send: its URL, the same URL redacted for reports, and its headers. */
export interface PreparedRequest {
  /** The URL sent. */
  url: string;
  /** The URL with the key and secret segments replaced by `[REDACTED]`. */
  displayUrl: string;
  /** The request headers (the key's, when it travels in a header). */
  headers: Record<string, string>;
}

/** What {@link createSender} needs. */
export interface SenderSettings {
  /** The `fetch` under ofetch. */
  fetch: typeof globalThis.fetch;
  /** Time allowed for one attempt, headers and body, in ms. */
  timeoutMs: number;
  /** How many times a read is retried. */
  retries: number;
  /** The first retry's delay in ms; doubled on each retry. */
  retryDelayMs: number;
  /** The largest response body read, in bytes. */
  maxResponseBytes: number;
  /** Removes the key from anything reported. */
  redact: Redactor;
  /** Receives a redacted record of every exchange. */
  onRequest?: ((event: RequestEvent) => void) | undefined;
}

/**
 * Sends one prepared request of an operation (with its retries) and reads the answer.
 *
 * @returns The parsed answer.
 * @throws {VaultError} For every error answer and failure.
 */
export type Sender = (
  name: EndpointName,
  request: PreparedRequest,
  body: FormData | undefined,
  callOptions: CallOptions | undefined,
) => Promise<unknown>;

const utf8Decoder = /* @__PURE__ */ new TextDecoder();

/** Statuses on which reads are retried; 429 is not, to not feed a rate limiter. */
const RETRY_STATUSES = [408, 500, 502, 503, 504];

/**
 * Creates the sender of a client.
 *
 * @param settings Fetch, limits and reporting.
 * @returns The sender.
 */
export function createSender(settings: SenderSettings): Sender {
  const $fetch = createFetch({ fetch: settings.fetch });
  const redact = settings.redact;

  return async function send(
    name: EndpointName,
    request: PreparedRequest,
    body: FormData | undefined,
    callOptions: CallOptions | undefined,
  ): Promise<unknown> {
    const definition: EndpointDefinition = endpoints[name];
    const origin: ResponseOrigin = { endpoint: name, definition, url: request.displayUrl, redact };
    const started = Date.now();
    let status: number | undefined;
    let retryAfter: string | null = null;
    let bytes: Uint8Array;
    const report = (errorCode: string | undefined) =>
      settings.onRequest?.({
        endpoint: name,
        method: definition.method,
        url: request.displayUrl,
        status,
        durationMs: Date.now() - started,
        errorCode,
      });
    try {
      const retries = definition.access === 'read' ? settings.retries : 0;
      const attempt = new AttemptTimer(settings.timeoutMs, callOptions?.signal);
      let response: Response;
      try {
        try {
          response = await $fetch.raw(request.url, {
            method: definition.method,
            ...(body ? { body } : {}),
            headers: request.headers,
            responseType: 'stream',
            retry: retries > 0 ? retries : false,
            retryStatusCodes: RETRY_STATUSES,
            retryDelay: (ctx: FetchContext) => {
              attempt.restart();
              return backoff(settings.retryDelayMs, retries, ctx.options.retry);
            },
            signal: attempt.signal,
            onResponseError: releaseBeforeRetry,
          });
        } catch (error) {
          // Statuses ≥ 400 arrive as FetchError with the response: read them like any other.
          if (error instanceof FetchError && error.response) response = error.response;
          else throw error;
        }
        status = response.status;
        if (status === 429) retryAfter = response.headers.get('retry-after');
        bytes = await readBody(response, settings.maxResponseBytes, origin, attempt);
      } finally {
        attempt.stop();
      }
      const contentType = response.headers.get('content-type') ?? '';
      let result: unknown;
      if (definition.response === 'binary') {
        // An attachment may itself be JSON: only an error-shaped JSON body is an error answer.
        const isJson = /json/i.test(contentType);
        if (status < 400 && !(isJson && isErrorBody(bytes))) {
          result = {
            bytes,
            contentType,
            fileName: fileNameOf(response.headers.get('content-disposition')),
          } satisfies DownloadedFile;
        } else {
          const text = utf8Decoder.decode(bytes);
          interpretJson(status, text, origin);
          throw errorAnswer(
            status,
            `expected file data, received ${excerptOf(text, redact)}`,
            undefined,
            origin,
          );
        }
      } else {
        result = interpretJson(status, utf8Decoder.decode(bytes), origin);
      }
      report(undefined);
      return result;
    } catch (error) {
      const vaultError = withRetryAfter(
        error instanceof VaultError ? error : fromThrown(error, origin, callOptions?.signal),
        parseRetryAfter(retryAfter),
      );
      report(vaultError.code);
      throw vaultError;
    }
  };
}

/** Lets go of a failed response's body when ofetch is about to retry, so its socket is freed now. */
function releaseBeforeRetry(context: FetchContext): void {
  const left = context.options.retry;
  if (
    typeof left === 'number' &&
    left > 0 &&
    context.response &&
    RETRY_STATUSES.includes(context.response.status)
  ) {
    context.response.body?.cancel().catch(() => {});
  }
}

/** Tells whether a JSON body is an error answer (`{"err":…}` or `{"status":"error"}`). */
function isErrorBody(bytes: Uint8Array): boolean {
  try {
    const data: unknown = JSON.parse(utf8Decoder.decode(bytes));
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return false;
    return 'err' in data || (data as { status?: unknown }).status === 'error';
  } catch {
    return false;
  }
}

function backoff(baseMs: number, retries: number, remaining: unknown): number {
  const left = typeof remaining === 'number' ? remaining : retries;
  const attempt = Math.max(0, retries - left);
  return baseMs * 2 ** attempt + Math.floor(Math.random() * baseMs * 0.25);
}

/**
 * One timer per attempt, covering the headers and the body: ofetch's own timeout stops at the
 * headers, and a signal that stays armed through the body lets it be read with `arrayBuffer()`,
 * far cheaper than a stream reader, and still be cut off. Restarted before each retry; an attempt
 * that timed out is not retried (its signal stays aborted).
 */
class AttemptTimer {
  /** Whether the attempt ran out of time. */
  expired = false;
  /** The time allowed for one attempt, in ms. */
  readonly timeoutMs: number;
  /** The signal to pass to fetch. */
  readonly signal: AbortSignal;
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

async function readBody(
  response: Response,
  maxBytes: number,
  origin: ResponseOrigin,
  attempt: AttemptTimer,
): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(declared, maxBytes, origin, response.status);
  }
  if (!response.body) return new Uint8Array(0);
  try {
    // A declared length within the limit: read it whole. Otherwise count the bytes as they come.
    if (declared >= 0) return new Uint8Array(await response.arrayBuffer());
    const reader = response.body.getReader();
    const chunks: Uint8Array[] = [];
    let total = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.byteLength;
        if (total > maxBytes) throw tooLarge(total, maxBytes, origin, response.status);
        chunks.push(value);
      }
    } catch (error) {
      await reader.cancel().catch(() => {});
      throw error;
    }
    return concat(chunks, total);
  } catch (error) {
    if (attempt.expired) {
      throw new VaultError(
        'timeout',
        `${origin.definition.operation}: the body did not arrive within ${attempt.timeoutMs} ms.`,
        {
          endpoint: origin.endpoint,
          url: origin.url,
          status: response.status,
        },
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

function tooLarge(size: number, maxBytes: number, origin: ResponseOrigin, status: number): VaultError {
  return new VaultError(
    'too_large',
    `${origin.definition.operation}: the response is larger than the limit of ${maxBytes} bytes (${size} bytes so far).`,
    {
      endpoint: origin.endpoint,
      url: origin.url,
      status,
    },
  );
}

function fromThrown(error: unknown, origin: ResponseOrigin, signal: AbortSignal | undefined): VaultError {
  const root = innermost(error);
  const operation = origin.definition.operation;
  const cause = toVaultError(root, origin.redact).cause;
  if (signal?.aborted && !(signal.reason instanceof Error && signal.reason.name === 'TimeoutError')) {
    return new VaultError('aborted', `${operation} was cancelled.`, {
      endpoint: origin.endpoint,
      url: origin.url,
      cause,
    });
  }
  const name = root instanceof Error ? root.name : '';
  const text =
    root instanceof Error ? `${(root as { code?: unknown }).code ?? ''} ${root.message}` : String(root);
  if (name === 'TimeoutError' || /timeout|timed out/i.test(text)) {
    return new VaultError('timeout', `${operation}: the vault did not answer in time.`, {
      endpoint: origin.endpoint,
      url: origin.url,
      cause,
    });
  }
  const detail = origin.redact(thrownWords(root));
  return new VaultError('network', `${operation}: could not reach the vault (${detail}).`, {
    endpoint: origin.endpoint,
    url: origin.url,
    cause,
  });
}

function fileNameOf(disposition: string | null): string | undefined {
  if (!disposition) return undefined;
  const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition);
  if (star?.[1]) {
    try {
      return decodeURIComponent(star[1]);
    } catch {
      // fall through to the plain form
    }
  }
  const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(disposition);
  return plain?.[1];
}
