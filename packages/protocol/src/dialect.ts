/**
 * Which API a server speaks, told without credentials: the legacy API of the spec (the Vaultline
 * server, TeamPass 2) or TeamPass 3's REST API. One keyless request usually tells: the legacy
 * identification (`GET …/info/version`), which a Vaultline server answers with who it is, TeamPass
 * 2 with its missing-key error (`{"err":…}`), and TeamPass 3 with an RFC 9457 problem
 * (`401 Missing Authorization header`). Only an answer that says neither (a proxy's page, a 404,
 * a 502) costs a second keyless request, TeamPass 3's OpenAPI document (`GET …/openapi.json`,
 * titled "TeamPass REST API"); no answer at all (network error, timeout) costs none. An answer
 * that identifies nothing (a web page) detects nothing, and no key is sent to it. Inconclusive
 * answers are never kept for long.
 *
 * @see ../../../docs/teampass.md
 * @module
 */

import * as v from 'valibot';
import {
  type Dialect,
  type IdentifyRequest,
  type KeylessAnswer,
  requestKeyless,
  type ServerCapabilities,
} from './capabilities.ts';
import { baseOfPath } from './internal/base-url.ts';
import { createCachedProbe } from './internal/cached-probe.ts';
import { capabilitiesOf, type Identification, readIdentification } from './legacy/capabilities.ts';
import { SERVER_INFO_PATH } from './legacy/server-info.ts';
import { teampass3Capabilities } from './teampass3/capabilities.ts';
import { teampass3Endpoints } from './teampass3/endpoints.ts';
import { TeamPass3OpenApiSchema, TeamPass3ProblemSchema } from './teampass3/schemas.ts';
import { platformFetch } from './transport/exchange.ts';

/** The title of TeamPass 3's OpenAPI document. */
export const TEAMPASS3_API_TITLE = 'TeamPass REST API';

/** Options of {@link detectDialect}. */
export interface DetectDialectOptions {
  /**
   * The server's base URL (the part before `/api/index.php`); a URL naming the API path, or the
   * web app's page (`/index.php`, the address a browser shows for TeamPass), is cut back to it.
   */
  baseUrl: string;
  /** The API's path under the base URL. Default `/api/index.php`. */
  apiPath?: string | undefined;
  /** The `fetch` to use; the global one by default. */
  fetch?: typeof globalThis.fetch | undefined;
  /** Extra headers (a proxy's); never credentials: the requests are keyless. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Time allowed for each request, in ms. Default 10 000. */
  timeoutMs?: number | undefined;
}

/** What {@link detectDialect} found. */
export type DialectDetection =
  | {
      /** The server answered in a way that tells its dialect. */
      readonly detected: true;
      /** The dialect: store it per connection and pass it back as `createVaultClient({ dialect })`. */
      readonly dialect: Dialect;
      /** What the server can do, as far as a keyless request tells (`credentials` says what to ask for). */
      readonly capabilities: ServerCapabilities;
      /** One line: what told it, for logs and messages. */
      readonly evidence: string;
    }
  | {
      /** No usable answer (network error, timeout, 408, 429, a 5xx, or an answer that is not the API's: a web page). */
      readonly detected: false;
      /** Unknown. */
      readonly dialect: undefined;
      /** Unknown. */
      readonly capabilities: undefined;
      /** One line: what came back instead. */
      readonly evidence: string;
    };

/**
 * Tells which API a server speaks, without credentials: for connect flows, which must know what
 * to ask for before they have it (an API key alone, or a login, password and API key / personal
 * access token: `capabilities.credentials`). Never throws for a failing server.
 *
 * Rules, in order: a Vaultline identification → `legacy`; a problem+json answer (TeamPass 3
 * answers `401 Missing Authorization header` to a request without a token, `403 HTTPS is
 * required` over plain HTTP where HTTPS is required) → `teampass3`; an `{"err":…}` body (TeamPass
 * 2) → `legacy`; otherwise, when an answer came at all, TeamPass 3's keyless OpenAPI document
 * titled "TeamPass REST API" → `teampass3`; otherwise not detected. A web page, a 404 or a
 * proxy's refusal is no identification: the legacy API puts the key in the URL, which only a
 * server that said it is TeamPass 2 (or the Vaultline server) may get.
 *
 * @param options The server.
 * @returns The dialect and what the server can do, or why it could not tell.
 * @example
 * ```ts
 * const found = await detectDialect({ baseUrl: 'https://teampass.example.com' });
 * if (found.detected && found.capabilities.credentials === 'password') askForPassword();
 * const vault = createVaultClient({ baseUrl, login, password, apiKey, dialect: found.dialect });
 * ```
 */
export async function detectDialect(options: DetectDialectOptions): Promise<DialectDetection> {
  const detection = await detect(identifyRequestOf(options));
  if (detection.dialect === undefined)
    return { detected: false, dialect: undefined, capabilities: undefined, evidence: detection.evidence };
  return {
    detected: true,
    dialect: detection.dialect,
    capabilities: capabilitiesOfDetection(detection),
    evidence: detection.evidence,
  };
}

/** What one detection found: the dialect (or none), and the legacy identification it read. */
export interface Detection {
  /** The dialect; `undefined` when the answers were inconclusive. */
  readonly dialect: Dialect | undefined;
  /** The legacy identification's reading of the first answer (what a legacy client's probe keeps). */
  readonly identification: Identification;
  /** One line: what told it. */
  readonly evidence: string;
}

/**
 * The capabilities a detection means, before any sign-in.
 *
 * @param detection The detection.
 * @returns The capabilities; the cautious legacy ones with `detected: false` when inconclusive.
 */
export function capabilitiesOfDetection(detection: Detection): ServerCapabilities {
  if (detection.dialect === 'teampass3') return teampass3Capabilities();
  if (detection.identification.answered) return capabilitiesOf(detection.identification.info);
  return { ...capabilitiesOf(undefined), detected: false };
}

/**
 * The keyless request settings for a base URL.
 *
 * @param options The server.
 * @returns The request settings.
 */
export function identifyRequestOf(options: DetectDialectOptions): IdentifyRequest {
  const base = baseOfPath(options.baseUrl.replace(/[?#].*$/, ''), /\/api(\/index\.php)?(\/v1)?$/);
  return {
    apiRoot: base + (options.apiPath ?? '/api/index.php').replace(/\/+$/, ''),
    fetch: options.fetch ?? platformFetch,
    headers: options.headers,
    timeoutMs: options.timeoutMs ?? 10_000,
  };
}

/**
 * Runs the detection: the legacy identification, then, only when its answer tells neither
 * dialect, TeamPass 3's OpenAPI document.
 *
 * @param request Where and how.
 * @returns What it found; never throws.
 */
export async function detect(request: IdentifyRequest): Promise<Detection> {
  const first = await requestKeyless(request, SERVER_INFO_PATH);
  const identification = readIdentification(first);
  if (identification.answered && identification.info) {
    return {
      dialect: 'legacy',
      identification,
      evidence: `a Vaultline server identified itself (version ${identification.info.version})`,
    };
  }
  const problem = teampass3Problem(first);
  if (problem !== undefined) {
    return {
      dialect: 'teampass3',
      identification,
      evidence: `the legacy identification answered a TeamPass 3 problem: HTTP ${problem.status} "${problem.detail.slice(0, 80)}"`,
    };
  }
  if (identification.answered) {
    return {
      dialect: 'legacy',
      identification,
      evidence: `the legacy identification answered a TeamPass error (HTTP ${first.received ? first.status : '?'})`,
    };
  }
  // No answer at all (network, timeout): a second request would only double the wait.
  const document = first.received ? await requestKeyless(request, teampass3Endpoints.openApi.path) : first;
  if (openApiTitle(document) === TEAMPASS3_API_TITLE) {
    return {
      dialect: 'teampass3',
      identification,
      evidence: `openapi.json is titled "${TEAMPASS3_API_TITLE}"`,
    };
  }
  // An answer that says nothing (a web page, a 404, a proxy's refusal) identifies nothing: the
  // legacy API would put the key in the URL, which only TeamPass 2, identified, may get.
  return {
    dialect: undefined,
    identification,
    evidence: `no usable answer (${identification.answered ? 'unread' : identification.reason})`,
  };
}

/** A TeamPass 3 problem answer: `application/problem+json`, or TeamPass 3's missing-token words. */
function teampass3Problem(answer: KeylessAnswer): { status: number; detail: string } | undefined {
  if (!answer.received) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(answer.text);
  } catch {
    return undefined;
  }
  const parsed = v.safeParse(TeamPass3ProblemSchema, data);
  if (!parsed.success) return undefined;
  const problemType = answer.contentType.includes('application/problem+json');
  const missingToken = answer.status === 401 && /Missing Authorization header/i.test(parsed.output.detail);
  return problemType || missingToken ? { status: answer.status, detail: parsed.output.detail } : undefined;
}

function openApiTitle(answer: KeylessAnswer): string | undefined {
  if (!answer.received || answer.status !== 200) return undefined;
  try {
    const parsed = v.safeParse(TeamPass3OpenApiSchema, JSON.parse(answer.text));
    return parsed.success ? parsed.output.info.title : undefined;
  } catch {
    return undefined;
  }
}

/** Options of {@link createDialectProbe}. */
export interface DialectProbeOptions extends IdentifyRequest {
  /** How long an inconclusive detection is used before asking again, in ms. Default 30 000. */
  retryAfterMs?: number | undefined;
  /** The clock, for tests. */
  now?: (() => number) | undefined;
}

/** The cached detection of one server. */
export interface DialectProbe {
  /**
   * The detection: runs it on the first call (concurrent callers share it), then answers from the
   * cache; a conclusive one is kept, an inconclusive one for `retryAfterMs`.
   *
   * @param refresh Ask the server again.
   */
  get(refresh?: boolean): Promise<Detection>;
  /** The detection when already known and still fresh, without waiting. */
  known(): Detection | undefined;
}

/**
 * Creates the cached detection of a server, as a client in `auto` mode uses it.
 *
 * @param options Where, how, and how long an inconclusive answer is kept.
 * @returns The probe.
 */
export function createDialectProbe(options: DialectProbeOptions): DialectProbe {
  return createCachedProbe({
    ask: () => detect(options),
    conclusive: (detection) => detection.dialect !== undefined,
    retryAfterMs: options.retryAfterMs,
    now: options.now,
  });
}
