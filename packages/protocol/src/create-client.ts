/**
 * The client: one method per row of the endpoint table, derived, over ofetch. This file is the
 * wiring; each concern lives in a file of its own: `client/attempt.ts` (one attempt over ofetch,
 * body limits, error mapping), `client/plan.ts` (paths, the key, batching and URL limits),
 * `client/helpers.ts` (read-merge-write), `capabilities.ts` (what the server can do),
 * `search.ts` (the one search).
 *
 * @module
 */

import {
  createServerProbe,
  type KeyTransport,
  type KeyTransportOption,
  type ServerCapabilities,
} from './capabilities.ts';
import { createSender } from './client/attempt.ts';
import { mergeItemFields, readOneItem } from './client/helpers.ts';
import { createCallPlanner } from './client/plan.ts';
import { browserOrigin, explainNetworkFailure, withNetworkReason } from './client/reachability.ts';
import type { FolderEncoding, ItemWrite } from './codec.ts';
import { ENDPOINT_NAMES, type EndpointInput, type EndpointName, type EndpointOutput } from './endpoints.ts';
import { createRedactor, isVaultError, type Redactor, VaultError } from './errors.ts';
import type { Item } from './schemas.ts';

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
  /**
   * The origin requests are sent from when a browser sends them (and holds them to CORS):
   * `globalThis.origin` by default, `undefined` outside browsers. A request to another origin that
   * gets no answer is then explained: {@link VaultError.reason} `cors` when the server runs but does
   * not allow this origin, `mixed-content` or `unreachable`.
   */
  requestOrigin?: string | undefined;
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

const DEFAULTS = {
  timeoutMs: 10_000,
  retries: 2,
  retryDelayMs: 200,
  maxUrlLength: 8192,
  maxResponseBytes: 64 * 1024 * 1024,
  apiPath: '/api/index.php',
};

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
  const fetch = settings.fetch ?? globalThis.fetch.bind(globalThis);
  const planner = createCallPlanner({
    apiRoot,
    apiKey: settings.apiKey,
    maxUrlLength: settings.maxUrlLength,
    context: { folderEncoding: settings.folderEncoding ?? 'blob' },
    headers: { accept: 'application/json, */*;q=0.5', ...settings.headers },
  });
  const send = createSender({
    fetch,
    timeoutMs: settings.timeoutMs,
    retries: settings.retries,
    retryDelayMs: settings.retryDelayMs,
    maxResponseBytes: settings.maxResponseBytes,
    redact,
    onRequest: settings.onRequest,
  });
  const keyOption: KeyTransportOption = settings.keyTransport ?? 'auto';
  const requestOrigin = settings.requestOrigin ?? browserOrigin();
  const probe = createServerProbe({
    apiRoot,
    fetch,
    headers: settings.headers,
    timeoutMs: settings.timeoutMs,
    keyTransport: keyOption,
  });

  /** The key transport for the next call: fixed by the option, or from the server's identification. */
  function knownTransport(): KeyTransport | undefined {
    return keyOption === 'auto' ? probe.known()?.keyTransport : keyOption;
  }

  async function call<K extends EndpointName>(
    name: K,
    input: EndpointInput<K>,
    callOptions?: CallOptions,
  ): Promise<EndpointOutput<K>> {
    const transport = knownTransport() ?? (await probe.get()).keyTransport;
    const plan = planner.plan(name, input, transport);
    const { requests } = plan;
    try {
      // The common case, one request, without a results list.
      if (requests.length === 1) {
        return plan.merge([await send(name, requests[0]!, plan.body, callOptions)]) as EndpointOutput<K>;
      }
      const results: unknown[] = [];
      for (const request of requests) results.push(await send(name, request, plan.body, callOptions));
      return plan.merge(results) as EndpointOutput<K>;
    } catch (error) {
      // A server without file endpoints answers add/file with "No results".
      if (plan.body && isVaultError(error, 'not_found') && /^no results$/i.test(error.serverMessage ?? '')) {
        probe.noFiles();
      }
      // In a browser, no answer may be a CORS refusal of a running server: tell which.
      if (isVaultError(error, 'network') && error.reason === undefined) {
        const diagnosis = await explainNetworkFailure(baseUrl, {
          fetch,
          requestOrigin,
          timeoutMs: settings.timeoutMs,
        });
        if (diagnosis) throw withNetworkReason(error, diagnosis);
      }
      throw error;
    }
  }

  const methods = Object.fromEntries(
    ENDPOINT_NAMES.map((name) => [
      name,
      (input: never, callOptions?: CallOptions) => call(name, input, callOptions),
    ]),
  ) as unknown as VaultMethods;
  const client: VaultMethods = methods;

  return {
    ...methods,
    baseUrl,
    redact,
    capabilities: (capabilityOptions) => probe.get(capabilityOptions?.refresh ?? false),
    call,
    getItem: (id, callOptions) => readOneItem(client, id, callOptions),
    updateItemFields: (id, changes, callOptions) => mergeItemFields(client, id, changes, callOptions),
  };
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
