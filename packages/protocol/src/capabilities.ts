/**
 * What the client knows about its server: one cheap, keyless identification request
 * (`GET {base}/api/index.php/info/version`), read once and cached, turned into capabilities that
 * the core uses to pick strategies (key transport, search, file endpoints) and that adapters read
 * instead of branching on "is this TeamPass".
 *
 * @module
 */

import * as v from 'valibot';
import { SERVER_INFO_PATH, type ServerInfo, ServerInfoSchema } from './server-info.ts';

/** How the API key travels: `Authorization: Bearer <key>`, or `?apikey=` first in the query. */
export type KeyTransport = 'header' | 'query';

/** The key transport option of the client: `auto` picks the header when the server says it accepts it. */
export type KeyTransportOption = 'auto' | KeyTransport;

/** The most results a Vaultline server's find/item returns, when its identification does not say. */
export const VAULTLINE_MAX_RESULTS = 1000;

/** What a server can do, as far as the client could tell. */
export interface ServerCapabilities {
  /**
   * `vaultline` when the server identified itself; `teampass-compatible` for any other answer
   * (TeamPass answers its missing-key error), with TeamPass's limits assumed.
   */
  readonly server: 'vaultline' | 'teampass-compatible';
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
    version: undefined,
    features: [],
    keyTransport,
    search: 'restricted',
    files: 'unknown',
    fourByteText: false,
    maxResults: undefined,
    detected,
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
    version: info.version,
    features: [...info.features],
    keyTransport: option === 'auto' ? (has('bearer-auth') ? 'header' : 'query') : option,
    search: has('word-search') ? 'words' : has('unicode-search') ? 'full' : 'restricted',
    files: has('files'),
    fourByteText: has('four-byte-text'),
    maxResults: info.maxResults ?? VAULTLINE_MAX_RESULTS,
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

/** The answer of {@link identifyServer}: the server's identification, or why there is none. */
export type Identification =
  | { readonly answered: true; readonly info: ServerInfo | undefined }
  | { readonly answered: false; readonly reason: string };

/** The largest identification body read. */
const MAX_INFO_BYTES = 64 * 1024;

/** Statuses that say nothing about the server behind: a proxy, a limit, a server starting. */
const INCONCLUSIVE_STATUSES = new Set([408, 429, 502, 503, 504]);

/**
 * Sends the keyless identification request once (no retry) and reads its answer.
 *
 * A Vaultline server answers `ServerInfoSchema`; any other answer with a status below 500, or
 * any `{"err":…}` body (TeamPass: `500 {"err":"Something happen ... but what ?"}`), is a
 * TeamPass-compatible server. No answer, 408, 429 and other 5xx are inconclusive.
 *
 * @param request Where and how.
 * @returns The identification; never throws.
 */
export async function identifyServer(request: IdentifyRequest): Promise<Identification> {
  let response: Response;
  let text: string;
  try {
    response = await request.fetch(request.apiRoot + SERVER_INFO_PATH, {
      method: 'GET',
      headers: { ...request.headers, accept: 'application/json' },
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > MAX_INFO_BYTES) {
      await response.body?.cancel().catch(() => {});
      text = '';
    } else {
      text = (await response.text()).slice(0, MAX_INFO_BYTES);
    }
  } catch (error) {
    const name = error instanceof Error ? error.name : 'Error';
    return { answered: false, reason: name === 'TimeoutError' ? 'timeout' : 'network' };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  if (response.status === 200) {
    const parsed = v.safeParse(ServerInfoSchema, data);
    if (parsed.success) return { answered: true, info: parsed.output };
  }
  const errorBody = typeof data === 'object' && data !== null && !Array.isArray(data) && 'err' in data;
  if (errorBody || (response.status < 500 && !INCONCLUSIVE_STATUSES.has(response.status))) {
    return { answered: true, info: undefined };
  }
  return { answered: false, reason: `HTTP ${response.status}` };
}

/** Options of {@link createServerProbe}. */
export interface ServerProbeOptions extends IdentifyRequest {
  /** The client's key transport option. */
  keyTransport: KeyTransportOption;
  /** How long an inconclusive identification is used before asking again, in ms. Default 30 000. */
  retryAfterMs?: number | undefined;
  /** The clock, for tests. */
  now?: (() => number) | undefined;
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
  const retryAfterMs = options.retryAfterMs ?? 30_000;
  const now = options.now ?? Date.now;
  let current: ServerCapabilities | undefined;
  let expiresAt = Number.POSITIVE_INFINITY;
  let pending: Promise<ServerCapabilities> | undefined;

  async function identify(): Promise<ServerCapabilities> {
    const answer = await identifyServer(options);
    if (answer.answered) {
      current = capabilitiesOf(answer.info, options.keyTransport);
      expiresAt = Number.POSITIVE_INFINITY;
    } else {
      current = teampassCapabilities(options.keyTransport === 'header' ? 'header' : 'query', false);
      expiresAt = now() + retryAfterMs;
    }
    return current;
  }

  function known(): ServerCapabilities | undefined {
    // Asked before every call: no clock read once the answer is conclusive.
    if (current === undefined || expiresAt === Number.POSITIVE_INFINITY) return current;
    return now() < expiresAt ? current : undefined;
  }

  return {
    get(refresh = false) {
      const cached = refresh ? undefined : known();
      if (cached) return Promise.resolve(cached);
      pending ??= identify().finally(() => {
        pending = undefined;
      });
      return pending;
    },
    known,
    noFiles() {
      if (current && current.files !== false) current = { ...current, files: false };
    },
  };
}
