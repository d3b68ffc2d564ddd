/**
 * The client: one method per row of the endpoint table, derived, over ofetch.
 *
 * @module
 */

import { createFetch, type FetchContext, FetchError } from 'ofetch';
import {
  createServerProbe,
  type KeyTransport,
  type KeyTransportOption,
  type ServerCapabilities,
} from './capabilities.ts';
import type { FolderEncoding, ItemWrite } from './codec.ts';
import {
  type DownloadedFile,
  ENDPOINT_NAMES,
  type EndpointDefinition,
  type EndpointInput,
  type EndpointName,
  type EndpointOutput,
  endpoints,
  type FileUpload,
  fillPath,
} from './endpoints.ts';
import { createRedactor, isVaultError, REDACTED, type Redactor, toVaultError, VaultError } from './errors.ts';
import { errorAnswer, excerptOf, interpretJson, type ResponseOrigin } from './response.ts';
import type { Item } from './schemas.ts';
import type { EncodeContext } from './segments.ts';

/** Options of {@link createVaultClient}. */
export interface VaultClientOptions {
  /** The server's base URL, e.g. `https://vault.example.com` (the part before `/api/index.php`). */
  baseUrl: string;
  /** The API key. Sent as {@link VaultClientOptions.keyTransport} says; never reported anywhere. */
  apiKey: string;
  /**
   * How the key travels. `query`: `?apikey=` first in the query (what TeamPass requires).
   * `header`: `Authorization: Bearer <key>`, so that proxies and access logs never see it (a
   * Vaultline server). `auto` (default): identifies the server once (a keyless
   * `GET …/info/version`) before the first call, and uses the header when the server says
   * `bearer-auth`, the query otherwise.
   */
  keyTransport?: KeyTransportOption | undefined;
  /** The `fetch` to use; the global one by default. */
  fetch?: typeof globalThis.fetch | undefined;
  /** Time allowed for one attempt, headers and body, in ms. Default 10 000. An attempt that ran out of time is not retried. */
  timeoutMs?: number | undefined;
  /** How many times a read is retried on network errors and 5xx. Writes are never retried. Default 2. */
  retries?: number | undefined;
  /** The first retry's delay in ms; doubled on each retry. Default 200. */
  retryDelayMs?: number | undefined;
  /** The longest URL sent, in bytes. Id lists are split to stay below; writes fail with `too_large`. Default 8192. */
  maxUrlLength?: number | undefined;
  /** The largest response body read, in bytes. Default 64 MiB. */
  maxResponseBytes?: number | undefined;
  /** How folder values travel; `blob` (what TeamPass requires) by default. */
  folderEncoding?: FolderEncoding | undefined;
  /** The path of the API under the base URL. Default `/api/index.php`. */
  apiPath?: string | undefined;
  /** Extra request headers (e.g. a proxy's). */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Called after every HTTP exchange with a redacted record of it: for request logs. */
  onRequest?: ((event: RequestEvent) => void) | undefined;
}

/** A redacted record of one call, for request logs: never a key, never a write's values. */
export interface RequestEvent {
  /** The operation's name in the table. */
  endpoint: EndpointName;
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

/** Per-call options. */
export interface CallOptions {
  /** Cancels the call. */
  signal?: AbortSignal | undefined;
}

/** The methods derived from the endpoint table. */
export type VaultMethods = {
  [K in EndpointName]: (input: EndpointInput<K>, options?: CallOptions) => Promise<EndpointOutput<K>>;
};

/** A client of one vault. */
export interface VaultClient extends VaultMethods {
  /** The base URL it talks to. */
  readonly baseUrl: string;
  /** Removes the API key from any text: for logs of code built on the client. */
  readonly redact: Redactor;
  /**
   * What the server can do: identifies it with one keyless request on the first call, then
   * answers from a cache (an inconclusive answer is asked again after 30 s).
   *
   * @param options `refresh: true` asks the server again.
   * @returns The capabilities.
   */
  capabilities(options?: { refresh?: boolean | undefined }): Promise<ServerCapabilities>;
  /**
   * Calls an operation by name.
   *
   * @param name The operation.
   * @param input Its parameters.
   * @param options Per-call options.
   * @returns What it answered, parsed.
   */
  call<K extends EndpointName>(
    name: K,
    input: EndpointInput<K>,
    options?: CallOptions,
  ): Promise<EndpointOutput<K>>;
  /**
   * Reads one item.
   *
   * @param id The item id.
   * @returns The item.
   * @throws {VaultError} `not_found` when there is no such item.
   */
  getItem(id: number, options?: CallOptions): Promise<Item>;
  /**
   * Changes some fields of an item: reads it, merges, and sends all nine values back (update/item
   * replaces them all). Tags and "anyone can modify" cannot be read back; pass them to keep them.
   *
   * @param id The item id.
   * @param changes The fields to change.
   * @returns The server's status.
   */
  updateItemFields(
    id: number,
    changes: Partial<ItemWrite>,
    options?: CallOptions,
  ): Promise<{ status: string }>;
}

const utf8Decoder = /* @__PURE__ */ new TextDecoder();

const DEFAULTS = {
  timeoutMs: 10_000,
  retries: 2,
  retryDelayMs: 200,
  maxUrlLength: 8192,
  maxResponseBytes: 64 * 1024 * 1024,
  apiPath: '/api/index.php',
};

/** Statuses on which reads are retried; 429 is not, to not feed a rate limiter. */
const RETRY_STATUSES = [408, 500, 502, 503, 504];

interface PreparedRequest {
  url: string;
  displayUrl: string;
  headers: Record<string, string>;
}

/**
 * Creates a client of a vault that speaks the TeamPass-style API.
 *
 * @param options The server, key and behaviour.
 * @returns The client.
 * @example
 * ```ts
 * const vault = createVaultClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: process.env.VAULT_KEY! });
 * const items = await vault.readItems({ ids: [1, 2] });
 * ```
 */
export function createVaultClient(options: VaultClientOptions): VaultClient {
  const settings = { ...DEFAULTS, ...stripUndefined(options) };
  if (settings.apiKey.length === 0)
    throw new VaultError('invalid_request', 'Expected an API key, received an empty one.');
  const baseUrl = validateBaseUrl(settings.baseUrl);
  const apiRoot = baseUrl + settings.apiPath.replace(/\/+$/, '');
  const redact = createRedactor([settings.apiKey]);
  const keyQueries: Record<KeyTransport, { query: string; display: string }> = {
    query: { query: `?apikey=${encodeURIComponent(settings.apiKey)}`, display: `?apikey=${REDACTED}` },
    header: { query: '', display: '' },
  };
  const context: EncodeContext = { folderEncoding: settings.folderEncoding ?? 'blob' };
  const $fetch = createFetch({ fetch: settings.fetch ?? globalThis.fetch.bind(globalThis) });
  const encoder = new TextEncoder();
  const plainHeaders = { accept: 'application/json, */*;q=0.5', ...settings.headers };
  const keyHeaders: Record<KeyTransport, Record<string, string>> = {
    query: plainHeaders,
    header: { ...plainHeaders, authorization: `Bearer ${settings.apiKey}` },
  };
  const keyOption: KeyTransportOption = settings.keyTransport ?? 'auto';
  const probe = createServerProbe({
    apiRoot,
    fetch: settings.fetch ?? globalThis.fetch.bind(globalThis),
    headers: settings.headers,
    timeoutMs: settings.timeoutMs,
    keyTransport: keyOption,
  });

  /** The key transport for the next call: fixed by the option, or from the server's identification. */
  function knownTransport(): KeyTransport | undefined {
    return keyOption === 'auto' ? probe.known()?.keyTransport : keyOption;
  }
  async function keyTransport(): Promise<KeyTransport> {
    return knownTransport() ?? (await probe.get()).keyTransport;
  }

  function prepare(
    definition: EndpointDefinition,
    segments: Record<string, string>,
    transport: KeyTransport,
  ): PreparedRequest {
    const path = fillPath(definition.path, segments);
    const display = { ...segments };
    for (const [name, segment] of Object.entries(definition.params))
      if (segment.secret) display[name] = REDACTED;
    const key = keyQueries[transport];
    return {
      url: apiRoot + path + key.query,
      displayUrl: apiRoot + fillPath(definition.path, display) + key.display,
      headers: keyHeaders[transport],
    };
  }

  function urlLength(url: string): number {
    // Paths are base64, plain ids or percent-encoded, so URLs are ASCII: skip the byte count then.
    return /^[\x20-\x7e]*$/.test(url) ? url.length : encoder.encode(url).length;
  }

  async function send(
    name: EndpointName,
    request: PreparedRequest,
    body: FormData | undefined,
    callOptions: CallOptions | undefined,
  ) {
    const definition: EndpointDefinition = endpoints[name];
    const origin: ResponseOrigin = { endpoint: name, definition, url: request.displayUrl, redact };
    const started = Date.now();
    let status: number | undefined;
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
      const vaultError = error instanceof VaultError ? error : fromThrown(error, origin, callOptions?.signal);
      report(vaultError.code);
      throw vaultError;
    }
  }

  async function callOnce(
    name: EndpointName,
    segments: Record<string, string>,
    body: FormData | undefined,
    transport: KeyTransport,
    callOptions?: CallOptions,
  ) {
    const definition: EndpointDefinition = endpoints[name];
    const request = prepare(definition, segments, transport);
    const length = urlLength(request.url);
    if (length > settings.maxUrlLength) {
      throw new VaultError(
        'too_large',
        `${definition.operation}: the request URL would be ${length} bytes, above the limit of ${settings.maxUrlLength}.`,
        { endpoint: name, url: request.displayUrl },
      );
    }
    return send(name, request, body, callOptions);
  }

  async function call<K extends EndpointName>(
    name: K,
    input: EndpointInput<K>,
    callOptions?: CallOptions,
  ): Promise<EndpointOutput<K>> {
    const definition: EndpointDefinition = endpoints[name];
    const transport = knownTransport() ?? (await keyTransport());
    if (definition.multipart) {
      try {
        return (await callOnce(
          name,
          {},
          toFormData(input as FileUpload),
          transport,
          callOptions,
        )) as EndpointOutput<K>;
      } catch (error) {
        // A server without file endpoints answers add/file with "No results".
        if (isVaultError(error, 'not_found') && /^no results$/i.test(error.serverMessage ?? ''))
          probe.noFiles();
        throw error;
      }
    }
    const values = input as Record<string, unknown>;
    const segments: Record<string, string> = {};
    for (const [param, segment] of Object.entries(definition.params)) {
      if (definition.batch?.param === param) continue;
      segments[param] = segment.encode(values[param], context);
    }
    if (!definition.batch)
      return (await callOnce(name, segments, undefined, transport, callOptions)) as EndpointOutput<K>;

    const batchParam = definition.batch.param;
    const ids = values[batchParam] as readonly number[];
    const keep = definition.keep;
    const restrict = (records: unknown): EndpointOutput<K> => {
      if (!keep || !Array.isArray(records)) return records as EndpointOutput<K>;
      const wanted = new Set(values[keep.param] as readonly number[]);
      return records.filter((record: Record<string, unknown>) =>
        wanted.has(record[keep.field] as number),
      ) as EndpointOutput<K>;
    };
    const idSegment = definition.params[batchParam]!;
    const whole = idSegment.encode(ids, context);
    const single = prepare(definition, { ...segments, [batchParam]: whole }, transport);
    if (
      ids.length <= (definition.batch.size ?? Number.POSITIVE_INFINITY) &&
      urlLength(single.url) <= settings.maxUrlLength
    ) {
      // The common case: one call, prepared and measured once.
      return restrict(await send(name, single, undefined, callOptions));
    }
    const encoded = whole.split(';');
    const chunks = chunkIds(
      encoded,
      definition.batch.size ?? Number.POSITIVE_INFINITY,
      (chunk) =>
        urlLength(prepare(definition, { ...segments, [batchParam]: chunk.join(';') }, transport).url),
      settings.maxUrlLength,
    );
    if (chunks === undefined) {
      throw new VaultError(
        'too_large',
        `${definition.operation}: one id alone makes the URL longer than ${settings.maxUrlLength} bytes.`,
        {
          endpoint: name,
        },
      );
    }
    const results: unknown[] = [];
    for (const chunk of chunks) {
      results.push(
        await callOnce(
          name,
          { ...segments, [batchParam]: chunk.join(';') },
          undefined,
          transport,
          callOptions,
        ),
      );
    }
    if (definition.schema && results.every(Array.isArray)) return restrict(results.flat());
    return results[0] as EndpointOutput<K>;
  }

  const methods = Object.fromEntries(
    ENDPOINT_NAMES.map((name) => [
      name,
      (input: never, callOptions?: CallOptions) => call(name, input, callOptions),
    ]),
  ) as unknown as VaultMethods;

  async function getItem(id: number, callOptions?: CallOptions): Promise<Item> {
    const [item] = await call('readItems', { ids: [id] }, callOptions);
    if (!item || item.id !== id)
      throw new VaultError('not_found', `read/items: no item with id ${id}.`, { endpoint: 'readItems' });
    return item;
  }

  async function updateItemFields(id: number, changes: Partial<ItemWrite>, callOptions?: CallOptions) {
    const current = await getItem(id, callOptions);
    if (current.password === '' && changes.password === undefined) {
      // TeamPass answers "" for passwords it cannot decrypt; sending it back would erase the password.
      throw new VaultError(
        'invalid_request',
        `update/item: the vault did not return item ${id}'s password; pass the password to update it.`,
        {
          endpoint: 'updateItem',
        },
      );
    }
    const item: ItemWrite = {
      label: current.label,
      password: current.password,
      description: current.description,
      folderId: current.folderId,
      login: current.login,
      email: current.email,
      url: current.url,
      ...stripUndefined(changes),
    };
    return call('updateItem', { id, item }, callOptions);
  }

  const capabilities = (capabilityOptions?: { refresh?: boolean | undefined }) =>
    probe.get(capabilityOptions?.refresh ?? false);

  return { ...methods, baseUrl, redact, capabilities, call, getItem, updateItemFields };
}

/**
 * Groups encoded ids so each call stays within the size and URL limits.
 *
 * @returns The groups, or `undefined` when one id alone is too long.
 */
function chunkIds(
  ids: string[],
  size: number,
  measure: (chunk: string[]) => number,
  maxUrlLength: number,
): string[][] | undefined {
  const chunks: string[][] = [];
  let current: string[] = [];
  const base = measure([]);
  let length = base;
  for (const id of ids) {
    const added = id.length + (current.length > 0 ? 1 : 0);
    if (current.length > 0 && (current.length >= size || length + added > maxUrlLength)) {
      chunks.push(current);
      current = [];
      length = base;
    }
    length += id.length + (current.length > 0 ? 1 : 0);
    if (length > maxUrlLength) return undefined;
    current.push(id);
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
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
  const detail = origin.redact(
    root instanceof Error ? ((root as { code?: string }).code ?? root.message) : String(root),
  );
  return new VaultError('network', `${operation}: could not reach the vault (${detail}).`, {
    endpoint: origin.endpoint,
    url: origin.url,
    cause,
  });
}

/** The deepest `cause` of an error chain: where fetch keeps ECONNREFUSED and friends. */
function innermost(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5; depth++) {
    const next = current instanceof Error ? current.cause : undefined;
    if (next === undefined || next === null) break;
    current = next;
  }
  return current;
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

function toFormData(upload: FileUpload): FormData {
  const form = new FormData();
  form.set('item_id', String(upload.itemId));
  const blob =
    upload.file instanceof Blob
      ? upload.file
      : new Blob([upload.file as Uint8Array<ArrayBuffer>], {
          type: upload.contentType ?? 'application/octet-stream',
        });
  form.set('file', blob, upload.fileName);
  return form;
}

function validateBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new VaultError(
      'invalid_request',
      `Expected the vault's base URL (http:// or https://), received ${JSON.stringify(baseUrl.slice(0, 80))}.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new VaultError(
      'invalid_request',
      `Expected an http:// or https:// base URL, received ${url.protocol}.`,
    );
  }
  if (url.search || url.hash) {
    throw new VaultError(
      'invalid_request',
      'The base URL cannot carry a query or a fragment; pass the API key as apiKey.',
    );
  }
  // Accept a URL that already names the API path.
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '').replace(/\/api(\/index\.php)?$/, '');
}

function stripUndefined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
