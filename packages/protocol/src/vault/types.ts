/**
 * The public client's types: `createVaultClient`'s options (credentials in `auth`, what only one
 * dialect reads nested under it) and the `VaultClient` a developer meets, in the domain's words:
 * items, folders and files as the user sees them. The legacy API's operations by their wire names
 * live in `@vaultline/protocol/wire` (`createWireClient`).
 *
 * @module
 */

import type { Dialect, KeyTransportOption, ServerCapabilities, ServerKind } from '../capabilities.ts';
import type { Redactor } from '../errors.ts';
import type { KeyAnswer } from '../legacy/capabilities.ts';
import type { FolderEncoding, ItemWrite } from '../legacy/codec.ts';
import type { DownloadedFile, FileUpload } from '../legacy/endpoints.ts';
import type { FileInfo, Folder, Item } from '../legacy/schemas.ts';
import type { FolderCreate, FolderUpdate } from '../legacy/segments.ts';
import type { ServerInfo } from '../legacy/server-info.ts';
import type { SearchHit } from '../match-words.ts';
import type { ApiPermissions } from '../rights.ts';
import type { RequestEvent } from '../transport/transport.ts';
import type { VaultAuth } from './credentials.ts';

export type {
  ApiKeyCredentials,
  CredentialFields,
  CredentialKind,
  KindlessCredentials,
  PasswordCredentials,
  PersonalAccessTokenCredentials,
  VaultAuth,
  VaultCredentials,
} from './credentials.ts';

/** Which dialect a client speaks: detected once (`auto`, the default), or as stored from an earlier detection. */
export type DialectOption = 'auto' | Dialect;

/**
 * Where a short-lived process keeps its session token between runs (the OS keychain, VS Code's
 * SecretStorage), so that a command normally signs in not at all: `{ get(), set(token | undefined) }`.
 * The client reads it once before it would sign in (a token of another login, or one about to
 * expire, is not used), writes every new token, and clears it when the server refuses it or on
 * `dispose()`. The token is a secret: keep it where the password is kept.
 */
export interface TokenCache {
  /** The token kept, if any. */
  get(): string | undefined | Promise<string | undefined>;
  /** Keeps a token, or forgets it (`undefined`). */
  set(token: string | undefined): void | Promise<void>;
}

/**
 * What to do where the server's find/item matches labels only (TeamPass, older Vaultline servers):
 * `folders` reads the searched folders (read/folder) and matches every field here: exact, at the
 * cost of every item of those folders crossing the network, passwords included (TeamPass has no
 * listing without them). `labels` sends find/item the longest part of a word it accepts and keeps
 * the items whose label holds every word: cheaper, but misses items found only by their login, URL
 * or folder path, and finds nothing when no part is worth sending.
 */
export type SearchFallback = 'folders' | 'labels';

/**
 * How the server was asked:
 * - `words`: the text (its words a URL can carry) went to a find/item that matches every word in
 *   every field;
 * - `full`: the whole text (one word) went to a label-only find/item (`labels` fallback);
 * - `run`: the longest accepted part of a word did (`labels` fallback);
 * - `folders`: the searched folders were read and matched here;
 * - `none`: nothing was asked.
 */
export type SearchStrategy = 'words' | 'full' | 'run' | 'folders' | 'none';

/** What a search found (`items.search`). */
export interface SearchResult {
  /**
   * The items of the searched folders where every word is found (in the label only after `full`
   * and `run`), ranked: see `compareSearchHits`.
   */
  items: Item[];
  /** The same items with their ranks, to merge results of several vaults in the same order. */
  hits: SearchHit[];
  /** What the server was sent, or `undefined` when find/item was not asked. */
  serverQuery: string | undefined;
  /** How the server was asked. */
  strategy: SearchStrategy;
  /** The server's result cap, when known. */
  maxResults: number | undefined;
  /**
   * Whether the server may have left results out: it answered as many as its cap (per call).
   * On a TeamPass-compatible server the cap is unknown and this is `false`.
   */
  truncated: boolean;
}

/** The current one-time code of an item (TOTP, RFC 6238). */
export interface OtpCode {
  /** The item. */
  itemId: number;
  /** The code, zero-padded to its digits. A secret: show it, never log it. */
  code: string;
  /** How many seconds it stays valid. */
  secondsLeft: number;
  /** The period of the codes, in seconds (30 by default). */
  period: number;
  /** How many digits a code has (6 or 8). */
  digits: number;
}

/** An item found by its URL: no password. */
export interface UrlMatch {
  /** The item id. */
  id: number;
  /** The label. */
  label: string;
  /** The login. */
  login: string;
  /** The URL it holds. */
  url: string;
  /** The folder that holds it. */
  folderId: number;
  /** Whether it has a TOTP secret (`readOtp` reads its code). */
  otp: boolean;
}

/** Who the client acts as. */
export interface VaultIdentity {
  /**
   * The login every call runs as, on servers with per-user sign-in (TeamPass 3): the person whose
   * rights the server enforces. `undefined` on the legacy API, whose key acts for nobody in
   * particular (apps name the person they act for to the access checker).
   */
  login: string | undefined;
  /** The user's id, when signed in. */
  userId: number | undefined;
  /** Whether the user is an administrator, when signed in. */
  administrator: boolean | undefined;
  /** The user's API permissions as the server stated them at sign-in; `undefined` where there are none. */
  api: ApiPermissions | undefined;
  /**
   * Whether the server itself enforces this login's rights on every call of this client: on a
   * Vaultline server, the login is the one the key belongs to. What is read is then already what
   * the login may read.
   */
  enforced?: boolean | undefined;
}

/** How failed reads are tried again; every field has a default. */
export interface RetryOptions {
  /** How many times a read is retried on network errors and 5xx. Writes are never retried. Default 2. */
  retries?: number | undefined;
  /** The first retry's delay in ms; doubled on each retry. Default 200. */
  delayMs?: number | undefined;
  /** How many 429s one call waits out before failing with `rate_limited`. Default 2. */
  rateLimitRetries?: number | undefined;
  /** The longest single wait on a 429, in ms; a longer `Retry-After` fails at once with `rate_limited`. Default 30 000. */
  maxRetryAfterMs?: number | undefined;
}

/** What only the legacy API reads (TeamPass 2, the Vaultline server). */
export interface LegacyOptions {
  /**
   * How the key travels. `query`: `?apikey=` (what TeamPass 2 requires). `header`:
   * `Authorization: Bearer <key>` (a Vaultline server). `auto` (default): the server's keyless
   * identification decides, and nothing keyed is sent to a server that identified nothing.
   */
  keyTransport?: KeyTransportOption | undefined;
  /** The path of the API under the base URL. Default `/api/index.php`. */
  apiPath?: string | undefined;
  /** How folder values travel; `blob` (what TeamPass requires) by default. */
  folderEncoding?: FolderEncoding | undefined;
  /** The longest URL sent, in bytes. Id lists are split to stay below; writes fail with `too_large`. Default 8192. */
  maxUrlLength?: number | undefined;
  /**
   * What a Vaultline server answered before to `info/version` asked with this key (`onKeyAnswer`):
   * the key's rules and the login it acts as. The client does not ask again.
   */
  keyAnswer?: KeyAnswer | undefined;
  /**
   * Told when a Vaultline server said what this key gets and whom it acts as: to keep and pass
   * back as `keyAnswer`. It decides whether rights are read (`VaultIdentity.enforced`): keep it
   * where only a holder of the key can write it (sealed with the key).
   */
  onKeyAnswer?: ((answer: KeyAnswer) => void) | undefined;
}

/** What only TeamPass 3 reads: its sign-in session. */
export interface TeamPass3Options {
  /** Where the session token is kept between processes; the client signs in when it has none. */
  tokenCache?: TokenCache | undefined;
  /** Sign in again when fewer than this many ms remain before the token expires. Default 60 000. */
  refreshMarginMs?: number | undefined;
  /** The most records one paged read gathers (a folder's items, a search). Default 100 000. */
  maxItems?: number | undefined;
  /** Records asked per page. Default 500 (TeamPass 3's cap). */
  pageSize?: number | undefined;
  /** Pages, or single-id reads, sent at once. Default 4. */
  concurrency?: number | undefined;
  /**
   * For a migration only (`vaultline-server import`): items keep their TOTP profile in
   * {@link Item.otpSecret}, which is otherwise never kept. An app never sets it.
   */
  keepOtpSecrets?: boolean | undefined;
}

/** Options of `createVaultClient`. */
export interface VaultClientOptions {
  /** The server's base URL, e.g. `https://vault.example.com` (the part before `/api/index.php`). */
  baseUrl: string;
  /** The credentials: an API key, or {@link VaultCredentials}. */
  auth: VaultAuth;
  /**
   * Which dialect to speak. `auto` (default): one keyless request before the first call tells,
   * kept for the client's lifetime. `legacy` or `teampass3`: as stored from an earlier detection
   * (`capabilities().dialect`), so that short-lived processes send no probe.
   */
  dialect?: DialectOption | undefined;
  /**
   * What kind of server an earlier detection found (`capabilities().server`), stored with the
   * connection: `teampass-compatible` (TeamPass 2) means the legacy API with the key in the query
   * and no identification request; `teampass3` the TeamPass 3 dialect.
   */
  server?: ServerKind | undefined;
  /**
   * What a Vaultline server answered to an earlier keyless identification (`onDetected`'s
   * `identification`), passed back so that the next short-lived process sends none. Used only
   * where it sends the key in a header (`bearer-auth`, `keyTransport` not `query`): a stored answer
   * never puts a key in a URL; otherwise the server is asked.
   */
  identification?: ServerInfo | undefined;
  /**
   * Told once when `dialect: 'auto'` detected the server: its dialect and kind (and a Vaultline
   * server's keyless `identification`), to store and pass back (`dialect`, `server`,
   * `identification`) so that the next short-lived process sends no identification.
   */
  onDetected?: ((found: DetectedServer) => void) | undefined;
  /** The `fetch` to use; the global one by default. */
  fetch?: typeof globalThis.fetch | undefined;
  /** Extra request headers (e.g. a proxy's). */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Time allowed for one attempt, headers and body, in ms. Default 10 000. An attempt that ran out of time is not retried. */
  timeoutMs?: number | undefined;
  /** The largest response body read, in bytes. Default 64 MiB. */
  maxResponseBytes?: number | undefined;
  /** How failed reads and 429s are tried again. */
  retry?: RetryOptions | undefined;
  /** Called after every HTTP exchange with a redacted record of it: for request logs. */
  onRequest?: ((event: RequestEvent) => void) | undefined;
  /**
   * The origin requests are sent from when a browser sends them: `globalThis.origin` by default.
   * A request to another origin that gets no answer is then explained (`cors`, `mixed-content`).
   */
  requestOrigin?: string | undefined;
  /** What only the legacy API reads. */
  legacy?: LegacyOptions | undefined;
  /** What only TeamPass 3 reads. */
  teampass3?: TeamPass3Options | undefined;
  /** The clock and timer, for tests: `now` in ms since the epoch, `sleep` to wait out a 429. */
  clock?:
    | {
        now?: (() => number) | undefined;
        sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
      }
    | undefined;
}

/** What `dialect: 'auto'` detected, for `onDetected`. */
export interface DetectedServer {
  /** The dialect. */
  dialect: Dialect;
  /** The kind of server. */
  server: ServerKind;
  /** A Vaultline server's answer to the keyless identification; `undefined` for other servers. */
  identification?: ServerInfo | undefined;
}

/** Per-call options. */
export interface RequestOptions {
  /** Cancels the call. */
  signal?: AbortSignal | undefined;
}

/** Options of {@link VaultItems.getMany}. */
export interface GetManyOptions extends RequestOptions {
  /**
   * What an id that is not there (or not visible to the user) does: `fail` (default), the
   * `not_found` error; `omit`, left out of the answer, for checks that decide on what is there
   * (the access checker, references).
   */
  missing?: 'fail' | 'omit' | undefined;
}

/** Options of calls that act for a user. */
export interface ActingOptions extends RequestOptions {
  /**
   * The login to act for instead of the client's: only where the credentials may act for others
   * (`capabilities().otherUsers`, a legacy key); TeamPass 3 acts for the signed-in user only.
   */
  login?: string | undefined;
}

/** Options of {@link VaultItems.search}. */
export interface ItemSearchOptions extends ActingOptions {
  /**
   * The folders to search (not their sub-folders). Default: every folder the acting user may read.
   */
  folderIds?: readonly number[] | undefined;
  /** Where the server matches labels only: see `SearchFallback`. Default `folders`. */
  fallback?: SearchFallback | undefined;
}

/**
 * The pages of a folder listing, as the server sends them: iterate with `for await`, or gather
 * them with {@link ItemPages.all}. The legacy API sends a folder whole, in one page.
 */
export interface ItemPages extends AsyncIterable<Item[]> {
  /** Every item of every page, in order: the pages read a few at a time rather than one by one. */
  all(): Promise<Item[]>;
}

/** The items of the vault. */
export interface VaultItems {
  /**
   * Reads one item.
   *
   * @throws {VaultError} `not_found` when there is no such item, or the user may not see it.
   */
  get(id: number, options?: RequestOptions): Promise<Item>;
  /**
   * Reads several items, in the order asked (an id named twice comes once).
   *
   * @throws {VaultError} `not_found` when any of them is missing or hidden, naming those ids in its
   *   message and in `missingIds`: the same rule as {@link VaultItems.get}; with `missing: 'omit'`,
   *   those are left out instead.
   */
  getMany(ids: readonly number[], options?: GetManyOptions): Promise<Item[]>;
  /**
   * Lists the items of a folder (or of several), page by page as the server sends them. A folder
   * the user cannot see lists nothing.
   */
  list(folderIds: number | readonly number[], options?: RequestOptions): ItemPages;
  /**
   * Searches what the user can see: every word of `text` in the label, login, URL or folder path,
   * ranked; in every folder the acting user may read unless `folderIds` narrows it.
   */
  search(text: string, options?: ItemSearchOptions): Promise<SearchResult>;
  /**
   * Finds the items whose URL holds `url`, without passwords, where the server can (`urlLookup`).
   *
   * @throws {VaultError} `unsupported` where it cannot; nothing is sent.
   */
  findByUrl(url: string, options?: RequestOptions): Promise<UrlMatch[]>;
  /** Creates an item. */
  create(item: ItemWrite, options?: RequestOptions): Promise<{ id: number }>;
  /**
   * Changes the given fields of an item and keeps the others. Tags and "anyone can modify" cannot
   * be read back on every server: pass them to keep them.
   *
   * @throws {VaultError} `not_found` when there is no such item.
   */
  update(id: number, changes: Partial<ItemWrite>, options?: RequestOptions): Promise<void>;
  /**
   * Deletes items, all or none.
   *
   * @throws {VaultError} `not_found` when one of them is missing.
   */
  delete(ids: number | readonly number[], options?: RequestOptions): Promise<void>;
  /**
   * The current one-time code (TOTP) of an item, where the server has them (`otp`).
   *
   * @throws {VaultError} `unsupported` where it has none; `not_found` for an item without a TOTP secret.
   */
  otp(id: number, options?: RequestOptions): Promise<OtpCode>;
  /**
   * The vault's tags, where the server lists them (`tags`).
   *
   * @throws {VaultError} `unsupported` where it does not.
   */
  tags(options?: RequestOptions): Promise<string[]>;
}

/** The folders of the vault. */
export interface VaultFolders {
  /**
   * The folders the acting user may access, each with the user's right on it.
   *
   * @throws {VaultError} `invalid_request` on the legacy API when the client names no login and
   *   `options.login` none either: the key acts for nobody in particular.
   */
  list(options?: ActingOptions): Promise<Folder[]>;
  /** Creates a folder. */
  create(folder: FolderCreate, options?: RequestOptions): Promise<{ id: number }>;
  /** Changes a folder's title, complexity or renewal period. */
  update(id: number, changes: FolderUpdate, options?: RequestOptions): Promise<void>;
  /**
   * Deletes empty folders, all or none.
   *
   * @throws {VaultError} `conflict` for a folder that still holds items.
   */
  delete(ids: number | readonly number[], options?: RequestOptions): Promise<void>;
}

/** The attachments of items, where the server has them (`files`). */
export interface VaultFiles {
  /** The attachments of an item. */
  list(itemId: number, options?: RequestOptions): Promise<FileInfo[]>;
  /** Downloads an attachment. */
  download(fileId: number, options?: RequestOptions): Promise<DownloadedFile>;
  /** Attaches a file to an item; the new attachment's id, where the server says it. */
  upload(
    itemId: number,
    file: Omit<FileUpload, 'itemId'>,
    options?: RequestOptions,
  ): Promise<{ id: number | undefined }>;
}

/**
 * The key of `Symbol.asyncDispose` where the consumer's TypeScript declares it (lib
 * `esnext.disposable`, or `@types/node`); `never` where it does not (a browser project on an older
 * lib), which then simply sees no such member.
 */
type AsyncDisposeKey = SymbolConstructor extends { readonly asyncDispose: infer K extends symbol }
  ? K
  : never;

/** `[Symbol.asyncDispose]()`, for `await using`, where the consumer's lib has the symbol. */
export type AsyncDisposableClient = [AsyncDisposeKey] extends [never]
  ? unknown
  : { [K in AsyncDisposeKey]: () => Promise<void> };

/** A client of one vault, in the domain's words; `await using` disposes of it. */
export type VaultClient = VaultClientMembers & AsyncDisposableClient;

/** The members of a {@link VaultClient}. */
export interface VaultClientMembers {
  /** The base URL it talks to. */
  readonly baseUrl: string;
  /** Removes the secrets it was given and any session token from text: for logs of code built on it. */
  readonly redact: Redactor;
  /** The items. */
  readonly items: VaultItems;
  /** The folders. */
  readonly folders: VaultFolders;
  /** The attachments. */
  readonly files: VaultFiles;
  /**
   * What the server can do: identified with one keyless request on first use, then cached.
   *
   * @param options `refresh: true` asks the server again.
   */
  capabilities(options?: { refresh?: boolean | undefined }): Promise<ServerCapabilities>;
  /**
   * Who the client acts as: on TeamPass 3 the signed-in user (signs in when needed); on the legacy
   * API the `login` of its credentials, if any.
   */
  identity(options?: RequestOptions): Promise<VaultIdentity>;
  /**
   * Ends the client: on TeamPass 3 signs its session out and clears the token cache; with
   * `signOut: false` keeps the token for the next process. Later calls fail with `aborted`. Safe to
   * call twice; `await using` calls it.
   */
  dispose(options?: { signOut?: boolean | undefined }): Promise<void>;
}
