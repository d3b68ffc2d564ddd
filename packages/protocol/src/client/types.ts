/**
 * The client's types, shared by `create-client.ts` and the files of `client/`: the options, the
 * client's interface, per-call options and the redacted request record. Inner files import these
 * from here, never from `create-client.ts`.
 *
 * @module
 */

import type { KeyTransportOption, ServerCapabilities } from '../capabilities.ts';
import type { FolderEncoding, ItemWrite } from '../codec.ts';
import type { EndpointInput, EndpointName, EndpointOutput } from '../endpoints.ts';
import type { Redactor } from '../errors.ts';
import type { Item } from '../schemas.ts';

/** Options of `createVaultClient`. */
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
