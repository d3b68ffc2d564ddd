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
import type { CredentialFields } from '../vault/credentials.ts';
import type {
  DetectedServer,
  DialectOption,
  OtpCode,
  RetryOptions,
  TokenCache,
  UrlMatch,
  VaultIdentity,
} from '../vault/types.ts';

/**
 * `createVaultClient`'s options as every layer under it reads them (`vault/options.ts`
 * `settingsOf`): the public shape, by the public names, with the credentials read from `auth` and
 * every default applied once. A setting has one name from `VaultClientOptions` down to where it
 * is used: `teampass3.concurrency`, `retry.delayMs`, `legacy.maxUrlLength`.
 */
export interface ClientSettings {
  /** The server's base URL, as given (each dialect checks it). */
  readonly baseUrl: string;
  /** The fields of `auth`'s credentials, checked against their kind (`vault/credentials.ts`). */
  readonly credentials: CredentialFields;
  /** `VaultClientOptions.dialect`; `undefined` when not given (the pick decides). */
  readonly dialect: DialectOption | undefined;
  /** `VaultClientOptions.server`. */
  readonly server: ServerKind | undefined;
  /** `VaultClientOptions.identification`. */
  readonly identification: ServerInfo | undefined;
  /** `VaultClientOptions.onDetected`. */
  readonly onDetected: ((found: DetectedServer) => void) | undefined;
  /** The `fetch` to use: the global one unless given. */
  readonly fetch: typeof globalThis.fetch;
  /** Extra request headers; none unless given. */
  readonly headers: Readonly<Record<string, string>>;
  /** Time allowed for one attempt, in ms. */
  readonly timeoutMs: number;
  /** The largest response body read, in bytes. */
  readonly maxResponseBytes: number;
  /** How failed reads and 429s are tried again. */
  readonly retry: {
    readonly [K in keyof RetryOptions]-?: Exclude<RetryOptions[K], undefined>;
  };
  /** `VaultClientOptions.onRequest`. */
  readonly onRequest: ((event: RequestEvent) => void) | undefined;
  /** `VaultClientOptions.requestOrigin`; the legacy client reads the browser's when not given. */
  readonly requestOrigin: string | undefined;
  /** What only the legacy API reads. */
  readonly legacy: {
    readonly keyTransport: KeyTransportOption;
    readonly apiPath: string;
    readonly folderEncoding: FolderEncoding;
    readonly maxUrlLength: number;
    readonly keyAnswer: KeyAnswer | undefined;
    readonly onKeyAnswer: ((answer: KeyAnswer) => void) | undefined;
  };
  /** What only TeamPass 3 reads. */
  readonly teampass3: {
    readonly tokenCache: TokenCache | undefined;
    readonly refreshMarginMs: number;
    readonly maxItems: number;
    readonly pageSize: number;
    readonly concurrency: number;
    readonly keepOtpSecrets: boolean;
  };
  /** The clock and timer: `now` in ms since the epoch; `sleep` waits out a 429 (a timer unless given). */
  readonly clock: {
    readonly now: () => number;
    readonly sleep: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  };
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
