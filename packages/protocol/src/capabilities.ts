/**
 * What the client knows about its server: one cheap, keyless identification request
 * (`GET {base}/api/index.php/info/version`), read once and cached, turned into capabilities that
 * the core uses to pick strategies (key transport, search, file endpoints, ids per call) and that adapters read
 * instead of branching on "is this TeamPass".
 *
 * @module
 */

import * as v from 'valibot';
import { createCachedProbe } from './internal/cached-probe.ts';
import { innermost, thrownWords } from './internal/thrown.ts';
import { SERVER_INFO_PATH, type ServerInfo, ServerInfoSchema } from './legacy/server-info.ts';

/** How the API key travels: `Authorization: Bearer <key>`, or `?apikey=` first in the query. */
export type KeyTransport = 'header' | 'query';

/** The key transport option of the client: `auto` picks the header when the server says it accepts it. */
export type KeyTransportOption = 'auto' | KeyTransport;

/** The most results a Vaultline server's find/item returns, when its identification does not say. */
export const VAULTLINE_MAX_RESULTS = 1000;

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
 * The most ids the client puts in one call when the server does not say: on a Vaultline server
 * that does not report `maxIds` (every one before it did enforced 1000), on TeamPass, and while
 * the server is unknown.
 *
 * TeamPass 2 (2.1.27.x, `api/functions.php`) has no id limit of its own: `read/items` splits the
 * segment on `;`, checks each id with `is_numeric` and reads them all in one `IN (…)` query, then
 * builds each item's folder path and decrypts each password one by one. What bounds a call there
 * is the URL (web servers refuse request lines above about 8 KiB; the client keeps URLs within
 * `maxUrlLength`, 8,192 bytes) and the work of one PHP request. 1000 stays below both for ids of
 * up to seven digits, and is the smallest limit a known server enforces, so a call planned with
 * it is accepted by every server this client speaks to. Splitting costs one more request per
 * thousand ids.
 */
export const DEFAULT_MAX_IDS = 1000;

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
   * {@link DEFAULT_MAX_IDS} otherwise; `1` where every id is a call of its own (TeamPass 3: the core
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

/**
 * The capabilities of a TeamPass-compatible server (also the cautious defaults).
 *
 * @param keyTransport How the key travels; `query` unless the client was told `header`.
 * @param detected Whether the server answered the identification request.
 * @returns The capabilities.
 */
export function teampassCapabilities(
  keyTransport: KeyTransport = 'query',
  detected = true,
): ServerCapabilities {
  return {
    server: 'teampass-compatible',
    dialect: 'legacy',
    credentials: 'api-key',
    version: undefined,
    features: [],
    keyTransport,
    search: 'restricted',
    files: 'unknown',
    fourByteText: false,
    maxResults: undefined,
    ...LEGACY_ONLY,
    // TeamPass 2.1.27 (api/functions.php, update/item): inserts each tag sent, deletes none.
    editTags: 'added',
    maxIds: DEFAULT_MAX_IDS,
    detected,
  };
}

/** What every server of the legacy API can and cannot do, whatever it identifies as. */
const LEGACY_ONLY = {
  otp: false,
  tags: false,
  urlLookup: false,
  otherUsers: true,
  enforcedRights: false,
} as const;

/**
 * The capabilities of a TeamPass 3 server: a session token in the `Authorization` header, search
 * by any text, no attachments, TOTP codes, tags and URL lookup, one id per read, every call as the
 * signed-in user with the rights the server enforces.
 *
 * @param options The most records a paged read gathers (the search cap; 100 000, the session's
 *   default), and whether the server answered the identification.
 * @returns The capabilities.
 */
export function teampass3Capabilities(
  options: {
    version?: string | undefined;
    maxResults?: number | undefined;
    detected?: boolean | undefined;
  } = {},
): ServerCapabilities {
  return {
    server: 'teampass3',
    dialect: 'teampass3',
    credentials: 'password',
    // TeamPass 3's keyless answers do not say its version (its OpenAPI document's is the API's).
    version: undefined,
    features: [],
    keyTransport: 'header',
    search: 'full',
    files: false,
    // Recorded live: TeamPass 3.2.1.5 (utf8mb4 tables) stores and answers emoji as sent.
    fourByteText: true,
    maxResults: options.maxResults ?? 100_000,
    maxIds: 1,
    otp: true,
    tags: true,
    editTags: 'kept',
    urlLookup: true,
    otherUsers: false,
    enforcedRights: true,
    detected: options.detected ?? true,
  };
}

/**
 * The capabilities a server's identification means.
 *
 * @param info The identification answer of a Vaultline server; `undefined` for any other server.
 * @param option The client's key transport option.
 * @returns The capabilities.
 */
export function capabilitiesOf(
  info: ServerInfo | undefined,
  option: KeyTransportOption = 'auto',
): ServerCapabilities {
  if (info === undefined) return teampassCapabilities(option === 'header' ? 'header' : 'query');
  const has = (feature: string) => info.features.includes(feature);
  return {
    server: 'vaultline',
    dialect: 'legacy',
    credentials: 'api-key',
    version: info.version,
    features: [...info.features],
    keyTransport: option === 'auto' ? (has('bearer-auth') ? 'header' : 'query') : option,
    search: has('word-search') ? 'words' : has('unicode-search') ? 'full' : 'restricted',
    files: has('files'),
    fourByteText: has('four-byte-text'),
    maxResults: info.maxResults ?? VAULTLINE_MAX_RESULTS,
    ...LEGACY_ONLY,
    editTags: 'replaced',
    // read/otp: a Vaultline server that keeps TOTP secrets says so.
    otp: has('otp'),
    maxIds: info.maxIds ?? DEFAULT_MAX_IDS,
    detected: true,
  };
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

/**
 * The answer of {@link identifyServer}: the server's identification, or why there is none.
 * `answered` means the server said who it is: a Vaultline server its `info`, TeamPass 2 its
 * `{"err":…}` answer (`info` undefined). Anything else (no answer, a 5xx, a web page, JSON of
 * another shape) identifies nothing: `status` says whether an answer came at all.
 */
export type Identification =
  | { readonly answered: true; readonly info: ServerInfo | undefined }
  | {
      readonly answered: false;
      /** Why, in a few words: `network`, `timeout`, `HTTP 503`, `HTTP 200 text/html, not the API's answer`. */
      readonly reason: string;
      /** The HTTP status, when an answer came. */
      readonly status?: number | undefined;
      /** For `network`: what failed, in the platform's words (`ECONNREFUSED`). */
      readonly detail?: string | undefined;
    };

/** The largest identification body read. */
const MAX_INFO_BYTES = 64 * 1024;

/** Statuses that say nothing about the server behind: a proxy, a limit, a server starting. */
const INCONCLUSIVE_STATUSES = new Set([408, 429, 502, 503, 504]);

/**
 * Sends the keyless identification request once (no retry) and reads its answer.
 *
 * A Vaultline server answers `ServerInfoSchema`; TeamPass 2 answers a JSON `{"err":…}` body (its
 * missing-key error, `500 {"err":"Something happen ... but what ?"}`, or its API switched off, an
 * address not allowed): both are identifications. Anything else identifies nothing, and a key may
 * not travel in the URL to it: no answer, a 5xx, 408 or 429 (inconclusive: asked again later), and
 * any other answer, such as a web page (a URL that is not the vault's base).
 *
 * @param request Where and how.
 * @returns The identification; never throws.
 */
export async function identifyServer(request: IdentifyRequest): Promise<Identification> {
  return readIdentification(await requestKeyless(request, SERVER_INFO_PATH));
}

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

/**
 * Reads the answer to the identification request as {@link identifyServer} does.
 *
 * @param answer What the keyless `GET …/info/version` got.
 * @returns The identification.
 */
export function readIdentification(answer: KeylessAnswer): Identification {
  if (!answer.received)
    return answer.detail === undefined
      ? { answered: false, reason: answer.reason }
      : { answered: false, reason: answer.reason, detail: answer.detail };
  let data: unknown;
  try {
    data = JSON.parse(answer.text);
  } catch {
    data = undefined;
  }
  if (answer.status === 200) {
    const parsed = v.safeParse(ServerInfoSchema, data);
    if (parsed.success) return { answered: true, info: parsed.output };
  }
  if (isTeamPassErrorBody(data)) return { answered: true, info: undefined };
  const status = answer.status;
  if (status >= 500 || INCONCLUSIVE_STATUSES.has(status))
    return { answered: false, reason: `HTTP ${status}`, status };
  return {
    answered: false,
    reason: `HTTP ${status} ${bodyKind(answer, data)}, not the API's answer`,
    status,
  };
}

/** TeamPass 2's error answer: a JSON object with an `err` text. */
function isTeamPassErrorBody(data: unknown): boolean {
  return (
    typeof data === 'object' &&
    data !== null &&
    !Array.isArray(data) &&
    typeof (data as { err?: unknown }).err === 'string'
  );
}

/** What an answer that is not the API's was, in a few words. */
function bodyKind(answer: KeylessAnswer & { received: true }, data: unknown): string {
  if (/html/.test(answer.contentType) || /^\s*</.test(answer.text)) return 'with a web page';
  if (answer.text.trim() === '') return 'with an empty body';
  if (data !== undefined) return 'with JSON of another shape';
  return 'with text';
}

/**
 * The rules a key gets on a Vaultline server, which answers each key by the key's profile:
 * `vaultline` (the default: what the keyless identification says), or `teampass` (scripts written
 * for TeamPass 2: find/item matches labels only, as TeamPass does, whatever the identification's
 * `word-search` says). The keyless identification cannot tell them apart; `info/version` asked with
 * the key does: the identification again, or TeamPass's `{"api-version":…}`.
 */
export type KeyRules = 'vaultline' | 'teampass';

/** What `info/version` asked with the key tells of it. */
export interface KeyAnswer {
  /** The rules the key gets. */
  readonly rules: KeyRules;
  /** The login the key acts as, where the server said one. */
  readonly login: string | undefined;
}

/**
 * Asks a Vaultline server's `info/version` with the key (once per client, where the answer changes
 * something: a server that reports `word-search`, or a caller that needs the key's login), and
 * reads which rules the key gets and whom it acts as.
 *
 * @param request Where and how.
 * @param key How the key travels: its header, or its query (`?apikey=…`), as the identification allowed.
 * @returns What the answer said, or `undefined` when it said neither (no answer, a refused key).
 */
export async function identifyKey(
  request: IdentifyRequest,
  key: { readonly headers: Readonly<Record<string, string>>; readonly query: string },
): Promise<KeyAnswer | undefined> {
  const answer = await requestKeyless(
    { ...request, headers: { ...request.headers, ...key.headers } },
    `${SERVER_INFO_PATH}${key.query}`,
  );
  if (!answer.received || answer.status !== 200) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(answer.text);
  } catch {
    return undefined;
  }
  const parsed = v.safeParse(ServerInfoSchema, data);
  if (parsed.success) return { rules: 'vaultline', login: parsed.output.login };
  const apiVersion =
    typeof data === 'object' && data !== null ? (data as Record<string, unknown>)['api-version'] : undefined;
  return typeof apiVersion === 'string' ? { rules: 'teampass', login: undefined } : undefined;
}

/**
 * The capabilities a key gets: those of the identification for a key of the default profile; for
 * a key of the `teampass` profile, or one whose rules are unknown, find/item as TeamPass matches
 * (the label containing the text), so that a search never trusts a word search the key does not get.
 *
 * @param capabilities The identification's capabilities.
 * @param rules The key's rules, when known.
 * @returns The capabilities for the key.
 */
export function withKeyRules(
  capabilities: ServerCapabilities,
  rules: KeyRules | undefined,
): ServerCapabilities {
  if (rules === 'vaultline' || capabilities.search !== 'words') return capabilities;
  const features = capabilities.features.filter((feature) => feature !== 'word-search');
  return { ...capabilities, features, search: features.includes('unicode-search') ? 'full' : 'restricted' };
}

/** Options of {@link createServerProbe}. */
export interface ServerProbeOptions extends IdentifyRequest {
  /** The client's key transport option. */
  keyTransport: KeyTransportOption;
  /** How long an inconclusive identification is used before asking again, in ms. Default 30 000. */
  retryAfterMs?: number | undefined;
  /** The clock, for tests. */
  now?: (() => number) | undefined;
  /**
   * What an earlier identification found, stored with the connection: used as conclusive, so that
   * nothing is sent for it (TeamPass 2 answers the identification with an error, an HTTP 500).
   */
  known?: ServerCapabilities | undefined;
  /**
   * Sends the identification request: {@link identifyServer} by default. The dialect detection
   * passes its own, so that one request tells the dialect and the legacy capabilities.
   */
  identify?: (() => Promise<Identification>) | undefined;
}

/** The cached identification of one server. */
export interface ServerProbe {
  /**
   * The capabilities: identifies the server on the first call (concurrent callers share the
   * request), then answers from the cache.
   *
   * @param refresh Ask the server again.
   */
  get(refresh?: boolean): Promise<ServerCapabilities>;
  /** The capabilities when already known, without waiting. */
  known(): ServerCapabilities | undefined;
  /** Records that the server has no file endpoints (add/file answered "No results"). */
  noFiles(): void;
  /**
   * Why the last identification identified nothing (no answer, a 5xx, a web page), while its
   * cautious defaults are in use; `undefined` once the server identified itself.
   */
  unidentified(): (Identification & { answered: false }) | undefined;
}

/**
 * Creates the cached identification of a server. A conclusive answer is kept for the client's
 * lifetime (call `get(true)` after an upgrade); an inconclusive one gives the cautious defaults
 * for `retryAfterMs` only, so one failed request does not poison the cache.
 *
 * @param options Where, how, and the key transport option.
 * @returns The probe.
 */
export function createServerProbe(options: ServerProbeOptions): ServerProbe {
  const identify = options.identify ?? (() => identifyServer(options));
  const probe = createCachedProbe({
    ask: async () => {
      const answer = await identify();
      return answer.answered
        ? { capabilities: capabilitiesOf(answer.info, options.keyTransport), failure: undefined }
        : {
            capabilities: teampassCapabilities(options.keyTransport === 'header' ? 'header' : 'query', false),
            failure: answer,
          };
    },
    conclusive: (found) => found.failure === undefined,
    retryAfterMs: options.retryAfterMs,
    now: options.now,
    known: options.known && { capabilities: options.known, failure: undefined },
  });
  return {
    get: async (refresh) => (await probe.get(refresh)).capabilities,
    known: () => probe.known()?.capabilities,
    noFiles() {
      probe.update((found) =>
        found.capabilities.files === false
          ? found
          : { ...found, capabilities: { ...found.capabilities, files: false } },
      );
    },
    unidentified: () => probe.known()?.failure,
  };
}
