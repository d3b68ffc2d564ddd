/**
 * What the legacy client knows about its server: one cheap, keyless identification request
 * (`GET {base}/api/index.php/info/version`), read once and cached, turned into the
 * {@link ServerCapabilities} of a Vaultline server or of TeamPass 2, and what `info/version` asked
 * with the key says of that key's rules.
 *
 * @module
 */

import * as v from 'valibot';
import {
  type IdentifyRequest,
  type KeylessAnswer,
  type KeyTransport,
  type KeyTransportOption,
  requestKeyless,
  type ServerCapabilities,
} from '../capabilities.ts';
import { createCachedProbe } from '../internal/cached-probe.ts';
import { SERVER_INFO_PATH, type ServerInfo, ServerInfoSchema } from './server-info.ts';

/** The most results a Vaultline server's find/item returns, when its identification does not say. */
export const VAULTLINE_MAX_RESULTS = 1000;

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
