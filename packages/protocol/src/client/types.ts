/**
 * The wire client's types, shared by both dialects' implementations (`legacy/client.ts`,
 * `teampass3/adapter.ts`) and the dialect pick (`client/open.ts`): the options, the client's
 * interface and per-call options.
 *
 * @module
 */

import type { KeyTransportOption, ServerCapabilities, ServerKind } from '../capabilities.ts';
import type { Redactor } from '../errors.ts';
import type { KeyAnswer } from '../legacy/capabilities.ts';
import type { FolderEncoding, ItemWrite } from '../legacy/codec.ts';
import type { EndpointInput, EndpointName, EndpointOutput } from '../legacy/endpoints.ts';
import type { Item } from '../legacy/schemas.ts';
import type { ServerInfo } from '../legacy/server-info.ts';
import type { RequestEvent } from '../transport/transport.ts';
import type {
  DetectedServer,
  DialectOption,
  OtpCode,
  TokenCache,
  UrlMatch,
  VaultIdentity,
} from '../vault/types.ts';

/** How a client with sign-in sessions (TeamPass 3) keeps them; every field has a sensible default. */
export interface SessionSettings {
  /** Sign in again when fewer than this many ms remain before the token expires. Default 60 000 (at most a quarter of its lifetime). */
  refreshMarginMs?: number | undefined;
  /** The longest single wait on a 429, in ms; a longer `Retry-After` fails at once with `rate_limited`. Default 30 000. */
  maxRetryAfterMs?: number | undefined;
  /** How many 429s one call waits out before failing with `rate_limited`. Default 2. */
  rateLimitRetries?: number | undefined;
  /** The most records one paged read gathers (a folder's items, a search). Default 100 000. */
  maxItems?: number | undefined;
  /** Records asked per page. Default 500 (TeamPass 3's cap). */
  pageSize?: number | undefined;
  /** Pages, or single-id reads, sent at once. Default 4. */
  concurrency?: number | undefined;
  /** The clock, in ms since the epoch. Default `Date.now`. */
  now?: (() => number) | undefined;
  /** How to wait out a 429. Default a timer. */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
}

/** The wire client's options, flat: `createVaultClient`'s options as `vault/options.ts` maps them. */
export interface WireClientOptions {
  /** The server's base URL, e.g. `https://vault.example.com` (the part before `/api/index.php`). */
  baseUrl: string;
  /**
   * The API key: the legacy API's key, or on TeamPass 3 the user's personal API key (sent only in
   * the sign-in body, with the password). Never reported anywhere.
   */
  apiKey?: string | undefined;
  /**
   * The login to sign in as, on servers with per-user sign-in (TeamPass 3). Unused by the legacy
   * API, whose key acts for nobody in particular.
   */
  login?: string | undefined;
  /** The user's password, on servers with per-user sign-in (TeamPass 3): a secret like the key. */
  password?: string | undefined;
  /**
   * A personal access token, instead of the password and API key, where a TeamPass 3 site
   * enables them: a secret like the key.
   */
  personalAccessToken?: string | undefined;
  /**
   * Which dialect to speak. `auto` (default): one keyless request before the first call tells
   * (see `detectDialect`), kept for the client's lifetime. `legacy` or `teampass3`: as stored from
   * an earlier detection (`capabilities().dialect`), so that short-lived processes send no probe.
   * Setting {@link WireClientOptions.keyTransport} to `query` or `header` means `legacy`.
   */
  dialect?: DialectOption | undefined;
  /**
   * What kind of server an earlier detection found (`capabilities().server`, or `detectDialect`'s
   * `capabilities.server`), stored with the connection beside the dialect. `teampass-compatible`
   * (TeamPass 2, which identified itself by its answer) means the legacy dialect with the key in
   * the query, as TeamPass requires, and no identification request (TeamPass answers it with its
   * missing-key error, an HTTP 500 in its logs, at the start of every short-lived process);
   * `teampass3` means the `teampass3` dialect; `vaultline` changes nothing (its identification
   * says what it offers, and is asked).
   */
  server?: ServerKind | undefined;
  /** What `info/version` asked with this key answered before (`LegacyOptions.keyAnswer`). */
  keyAnswer?: KeyAnswer | undefined;
  /** Told when the server said what this key gets (`LegacyOptions.onKeyAnswer`). */
  onKeyAnswer?: ((answer: KeyAnswer) => void) | undefined;
  /** A Vaultline server's earlier keyless identification (`VaultClientOptions.identification`). */
  identification?: ServerInfo | undefined;
  /** Told once when `dialect: 'auto'` detected the server (`VaultClientOptions.onDetected`). */
  onDetected?: ((found: DetectedServer) => void) | undefined;
  /** Where the session token is kept between processes (TeamPass 3); the client signs in when it has none. */
  tokenCache?: TokenCache | undefined;
  /** How sign-in sessions are kept (TeamPass 3). */
  session?: SessionSettings | undefined;
  /**
   * How the legacy API's key travels. `query`: `?apikey=` first in the query (what TeamPass
   * requires). `header`: `Authorization: Bearer <key>`, so that proxies and access logs never see
   * it (a Vaultline server). `auto` (default): identifies the server once (a keyless
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
  /**
   * For a migration only (`vaultline-server import`): items read from TeamPass 3 keep their TOTP
   * profile in {@link Item.otpSecret}, which is otherwise never kept. An app never sets it.
   */
  keepOtpSecrets?: boolean | undefined;
}

/** Per-call options. */
export interface CallOptions {
  /** Cancels the call. */
  signal?: AbortSignal | undefined;
}

/** The methods derived from the endpoint table. */
export type WireMethods = {
  [K in EndpointName]: (input: EndpointInput<K>, options?: CallOptions) => Promise<EndpointOutput<K>>;
};

/** A client of one vault. */
export interface WireClient extends WireMethods {
  /** The base URL it talks to. */
  readonly baseUrl: string;
  /**
   * Removes the secrets it was given (API key, password, personal access token) and any session
   * token (anything shaped like a JWT, `Bearer …`) from text: for logs of code built on the client.
   */
  readonly redact: Redactor;
  /**
   * What the server can do: identifies it with one keyless request on the first call, then
   * answers from a cache (an inconclusive answer is asked again after 30 s). A client created
   * with an explicit `dialect` of `teampass3` sends nothing for it.
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
  /**
   * Reads the current one-time code (TOTP) of an item, where the server has them (`otp`).
   *
   * @param input The item.
   * @returns The code, the seconds it stays valid, its period and digits.
   * @throws {VaultError} `unsupported` where the server has no one-time codes; `not_found` for an
   *   item without a TOTP secret, or one the user may not read.
   */
  readOtp(input: { id: number }, options?: CallOptions): Promise<OtpCode>;
  /**
   * Lists the tags of the vault, where the server has them (`tags`). TeamPass 3 lists every tag of
   * the instance, including tags of items the user may not see.
   *
   * @returns The tags, sorted as the server sorts them.
   * @throws {VaultError} `unsupported` where the server has no tags to list.
   */
  readTags(options?: CallOptions): Promise<string[]>;
  /**
   * Reads the items of folders page by page as the server sends them (the legacy API sends a
   * folder whole, in one page); folders the user cannot see give nothing.
   *
   * @param ids The folder ids.
   * @returns The pages.
   */
  itemPages(ids: readonly number[], options?: CallOptions): AsyncIterable<Item[]>;
  /**
   * Finds the items whose URL contains the given text, where the server can (`urlLookup`).
   *
   * @param input The URL, or a part of it.
   * @returns The matches, without passwords.
   * @throws {VaultError} `unsupported` where the server cannot look items up by URL.
   */
  findByUrl(input: { url: string }, options?: CallOptions): Promise<UrlMatch[]>;
  /**
   * Who the client acts as: on TeamPass 3 the signed-in user (signs in when needed); on the legacy
   * API nobody in particular (`login: undefined`).
   *
   * @returns The identity.
   */
  identity(options?: CallOptions): Promise<VaultIdentity>;
  /**
   * Ends the client: on TeamPass 3 signs its session token out (`auth/logout`) and clears the
   * token cache; with `signOut: false` keeps the token in the cache for the next process. Later
   * calls fail with `aborted`. Safe to call twice.
   */
  dispose(options?: { signOut?: boolean | undefined }): Promise<void>;
}
