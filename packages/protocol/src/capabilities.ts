/**
 * What a server can do, in both dialects' words: the {@link ServerCapabilities} the core picks its
 * strategies from (key transport, search, file endpoints, ids per call) and that apps read instead
 * of branching on "is this TeamPass", and the one keyless request both dialects' identifications
 * send. Each dialect's own reading lives beside it: `legacy/capabilities.ts` (the identification,
 * the key's rules, the cached probe), `teampass3/capabilities.ts`.
 *
 * @module
 */

import { innermost, thrownWords } from './internal/thrown.ts';

/** How the API key travels: `Authorization: Bearer <key>`, or `?apikey=` first in the query. */
export type KeyTransport = 'header' | 'query';

/** The key transport option of the client: `auto` picks the header when the server says it accepts it. */
export type KeyTransportOption = 'auto' | KeyTransport;

/**
 * Which API a server speaks: `legacy`, the `/<verb>/<object>/…?apikey=` API of the spec (the
 * Vaultline server, TeamPass 2), or `teampass3`, TeamPass 3's JSON REST API with per-user sign-in.
 * The core picks the implementation from it; apps read the other capabilities, never this.
 */
export type Dialect = 'legacy' | 'teampass3';

/** Every {@link Dialect}: for apps that store a detected dialect and read it back. */
export const DIALECTS: readonly Dialect[] = ['legacy', 'teampass3'];

/**
 * What signing in needs: `api-key`, an API key alone (a login only names the person an app acts
 * for); `password`, the user's login and password with their personal API key, or the login and a
 * personal access token where the site enables them (the client then keeps a session token).
 */
export type CredentialsNeeded = 'api-key' | 'password';

/**
 * What kind of server answers: `vaultline` (it identified itself), `teampass-compatible` (TeamPass
 * 2, identified by its `{"err":…}` answer to the keyless identification; also the cautious
 * defaults while nothing is identified, with `detected: false`), `teampass3`.
 */
export const SERVER_KINDS = ['vaultline', 'teampass-compatible', 'teampass3'] as const;

/** One of {@link SERVER_KINDS}. */
export type ServerKind = (typeof SERVER_KINDS)[number];

/** What a server can do, as far as the client could tell. */
export interface ServerCapabilities {
  /**
   * `vaultline` when the server identified itself; `teampass-compatible` for TeamPass 2, which
   * answers the keyless identification with its missing-key error, with TeamPass's limits
   * assumed (and the cautious defaults, `detected: false`, while nothing identified the server);
   * `teampass3` for a TeamPass 3 server. Store it with the connection (`createVaultClient({ server })`).
   */
  readonly server: ServerKind;
  /** Which API the client speaks with the server. For the core's own choices; apps read the fields below. */
  readonly dialect: Dialect;
  /** What signing in needs: what a connect flow asks for. */
  readonly credentials: CredentialsNeeded;
  /** The version a Vaultline server reported; `undefined` otherwise. */
  readonly version: string | undefined;
  /** The features a Vaultline server reported (unknown names kept); empty otherwise. */
  readonly features: readonly string[];
  /** How this client sends the key: the header when the server accepts it (and the option allows it). */
  readonly keyTransport: KeyTransport;
  /**
   * What find/item does with its text. `words`: takes any text (percent-encoded UTF-8) and finds
   * the items where every word is in the label, login, URL or folder path, as the core's search
   * means it (Vaultline with `word-search`). `full`: takes any text, finds the labels that contain
   * it whole. `restricted`: takes only runs of `[A-Za-z0-9_:'-]` (TeamPass: a space or `%20`
   * answers 405, `0` answers 500) and finds the labels that contain it. Apps need not read it:
   * `searchItems` picks its strategy from it.
   */
  readonly search: 'words' | 'full' | 'restricted';
  /**
   * Whether add/file, read/listfiles and read/files exist. `unknown` on a TeamPass-compatible
   * server (no release has them, a fork does; "No results" looks the same either way) until
   * add/file answers "No results", which means it has none: then `false`.
   */
  readonly files: boolean | 'unknown';
  /** Whether characters outside the BMP (emoji) are stored as sent (TeamPass's default 3-byte tables refuse them). */
  readonly fourByteText: boolean;
  /** The most results find/item returns, when known. */
  readonly maxResults: number | undefined;
  /**
   * The most ids one call of a multi-id operation (read/items, read/folder, delete/item) carries:
   * the server's own limit when it reports one (`maxIds` in a Vaultline identification),
   * the legacy client's default (`DEFAULT_MAX_IDS`, 1000) otherwise; `1` where every id is a call of its own (TeamPass 3: the core
   * sends them a few at a time). The client splits longer lists (and lists whose URL would be too
   * long) into several calls and merges the answers.
   */
  readonly maxIds: number;
  /** Whether items can hold a TOTP secret whose current code `readOtp` reads (TeamPass 3; a Vaultline server with `otp`). */
  readonly otp: boolean;
  /** Whether items carry tags that reads return (`Item.tags`) and `readTags` lists (TeamPass 3). */
  readonly tags: boolean;
  /**
   * What an edit (`items.update`) does to an item's tags and "anyone can modify" when the change
   * does not name them: `kept` (only the changed fields are sent: TeamPass 3); `added` (TeamPass 2's
   * `update/item` keeps the item's tags and adds those sent, none removed, but sets "anyone can
   * modify" to what is sent, off when not given); `replaced` (a Vaultline server sets both to what
   * is sent: no tags and off when not given, as reads do not return them).
   */
  readonly editTags: 'kept' | 'added' | 'replaced';
  /** Whether `findByUrl` finds items by the URL they hold (TeamPass 3). */
  readonly urlLookup: boolean;
  /**
   * Whether the credentials may read another user's folders and items (`readUserFolders`,
   * `readUserItems` for any login): the legacy API's keys may; on TeamPass 3 every call runs as
   * the signed-in user, and another login is refused with `unsupported`.
   */
  readonly otherUsers: boolean;
  /**
   * Whether the server itself enforces the signed-in user's rights on every call (TeamPass 3):
   * what the client reads is already what that user may see, and folder rights are folded with
   * the user's API permissions. `false` where a key reads and writes everything and apps check
   * rights for the person they act for (`createAccessChecker`).
   */
  readonly enforcedRights: boolean;
  /**
   * `false` when the identification request got no usable answer (network error, timeout, 408,
   * 429, a 5xx without an `{"err":…}` body): these are then the cautious defaults, and the request
   * is made again after a short while instead of being trusted for the client's lifetime.
   */
  readonly detected: boolean;
}

/** What {@link identifyServer} needs. */
export interface IdentifyRequest {
  /** The API root, e.g. `https://vault.example.com/api/index.php`. */
  apiRoot: string;
  /** The fetch to use. */
  fetch: typeof globalThis.fetch;
  /** Extra headers (never the key: the request is keyless). */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Time allowed, in ms. */
  timeoutMs: number;
}

/** The largest identification body read. */
const MAX_INFO_BYTES = 64 * 1024;

/** What one keyless request got: the status, the content type and the body's text, or why nothing came. */
export type KeylessAnswer =
  | { readonly received: true; readonly status: number; readonly contentType: string; readonly text: string }
  | {
      readonly received: false;
      readonly reason: string;
      /** What failed, in the platform's words (`ECONNREFUSED`): never a secret, the request was keyless. */
      readonly detail?: string | undefined;
    };

/**
 * Sends one keyless `GET` under the API root (no retry) and reads at most 64 KiB of its answer.
 *
 * @param request Where and how.
 * @param path The path after the API root, e.g. `/info/version`.
 * @returns What came back; never throws.
 */
export async function requestKeyless(request: IdentifyRequest, path: string): Promise<KeylessAnswer> {
  try {
    const response = await request.fetch(request.apiRoot + path, {
      method: 'GET',
      headers: { ...request.headers, accept: 'application/json' },
      cache: 'no-store',
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    let text: string;
    if (declared > MAX_INFO_BYTES) {
      await response.body?.cancel().catch(() => {});
      text = '';
    } else {
      text = (await response.text()).slice(0, MAX_INFO_BYTES);
    }
    return {
      received: true,
      status: response.status,
      contentType: (response.headers.get('content-type') ?? '').toLowerCase(),
      text,
    };
  } catch (error) {
    const name = error instanceof Error ? error.name : 'Error';
    if (name === 'TimeoutError') return { received: false, reason: 'timeout' };
    return { received: false, reason: 'network', detail: thrownWords(innermost(error)) };
  }
}
