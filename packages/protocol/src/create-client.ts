/**
 * The wire client, under `createVaultClient`'s domain client (`vault/client.ts`) and behind
 * `createWireClient`: `openWireClient` picks the dialect (`client/auto-dialect.ts` detects it once
 * when asked to) and hands out one of two implementations of the one `WireClient` interface: the
 * legacy client below, or the TeamPass 3 adapter (`teampass3/adapter.ts`).
 *
 * The legacy client: one method per row of the endpoint table, derived, over the one transport
 * of both dialects (`transport/transport.ts`: HTTP, retries, 429s, time and body limits). This
 * file is the wiring; each concern lives in a file of its own: `client/attempt.ts` (the legacy
 * API's reading of an answer), `client/plan.ts` (paths, the key, batching and URL limits),
 * `client/helpers.ts` (read-merge-write), `client/types.ts` (the client's types), `capabilities.ts` (what the server can do),
 * `search.ts` (the one search).
 *
 * @module
 */

import * as v from 'valibot';
import {
  capabilitiesOf,
  createServerProbe,
  DEFAULT_MAX_IDS,
  type Identification,
  identifyKey,
  type KeyAnswer,
  type KeyTransportOption,
  type ServerCapabilities,
  withKeyRules,
} from './capabilities.ts';
import { createSender } from './client/attempt.ts';
import { createAutoDialectClient } from './client/auto-dialect.ts';
import { mergeItemFields, readOneItem } from './client/helpers.ts';
import { createCallPlanner } from './client/plan.ts';
import { browserOrigin, explainNetworkFailure, withNetworkReason } from './client/reachability.ts';
import type { CallOptions, WireClient, WireClientOptions, WireMethods } from './client/types.ts';
import { createRedactor, isVaultError, VaultError } from './errors.ts';
import { checkBaseUrl } from './internal/base-url.ts';
import {
  ENDPOINT_NAMES,
  type EndpointDefinition,
  type EndpointInput,
  type EndpointName,
  type EndpointOutput,
  endpoints,
} from './legacy/endpoints.ts';
import { SERVER_INFO_PATH, type ServerInfo, ServerInfoSchema } from './legacy/server-info.ts';
import { createTeamPass3Client } from './teampass3/adapter.ts';
import { DEFAULT_RATE_LIMIT, platformFetch } from './transport/transport.ts';

const DEFAULTS = {
  timeoutMs: 10_000,
  retries: 2,
  retryDelayMs: 200,
  maxUrlLength: 8192,
  maxResponseBytes: 64 * 1024 * 1024,
  apiPath: '/api/index.php',
};

/**
 * Creates the wire client of a vault: the Vaultline server, TeamPass 2 (the legacy API) or
 * TeamPass 3, with the options flattened by `vault/options.ts`.
 *
 * With `dialect: 'auto'` (the default) one keyless request before the first call tells the
 * dialect (see `detectDialect`), once per client; pass the stored `dialect` to skip it. Setting
 * `keyTransport` to `query` or `header` means the legacy API. Credentials: `apiKey` for the legacy
 * API; `login` with `password` and `apiKey`, or with `personalAccessToken`, for TeamPass 3.
 *
 * @param options The server, credentials and behaviour, flat.
 * @returns The wire client.
 * @throws {VaultError} `invalid_request` for a base URL that is not http(s), or credentials that
 *   can sign in to no dialect (or not to the one given).
 */
export function openWireClient(options: WireClientOptions): WireClient {
  const forcedTransport = options.keyTransport === 'query' || options.keyTransport === 'header';
  const dialect =
    options.dialect ??
    (forcedTransport || options.server === 'teampass-compatible' || knownIdentification(options)
      ? 'legacy'
      : options.server === 'teampass3'
        ? 'teampass3'
        : 'auto');
  if (dialect === 'legacy') return createLegacyVaultClient(options);
  const baseUrl = validateBaseUrl(options.baseUrl);
  if (dialect === 'teampass3') return createTeamPass3Client({ ...options, baseUrl });
  if (dialect !== 'auto') {
    throw new VaultError(
      'invalid_request',
      `Expected a dialect of auto, legacy or teampass3, received ${JSON.stringify(String(dialect)).slice(0, 40)}.`,
    );
  }
  return createAutoDialectClient({ ...options, baseUrl }, (identify) =>
    createLegacyVaultClient(options, { identify }),
  );
}

/**
 * A Vaultline server's earlier identification, when it may stand for a new one: well-formed, and
 * sending the key in a header (a stored answer never puts a key in a URL).
 */
function knownIdentification(options: WireClientOptions): ServerInfo | undefined {
  if (options.identification === undefined || options.keyTransport === 'query') return undefined;
  if (options.dialect === 'teampass3' || (options.server !== undefined && options.server !== 'vaultline'))
    return undefined;
  const parsed = v.safeParse(ServerInfoSchema, options.identification);
  if (!parsed.success || !parsed.output.features.includes('bearer-auth')) return undefined;
  const { login: _keyed, ...keyless } = parsed.output;
  return keyless;
}

/** What the dialect detection hands a legacy client it creates. */
export interface LegacyClientContext {
  /** Reads the identification the detection already made (or makes a new one): no second request. */
  identify?: (() => Promise<Identification>) | undefined;
}

/**
 * Creates a client of a vault that speaks the legacy API (the Vaultline server, TeamPass 2).
 *
 * @param options The server, key and behaviour.
 * @param context What the dialect detection shares with it.
 * @returns The client.
 */
export function createLegacyVaultClient(
  options: WireClientOptions,
  context: LegacyClientContext = {},
): WireClient {
  const settings = { ...DEFAULTS, ...stripUndefined(options) };
  const apiKey = options.apiKey ?? '';
  if (apiKey.length === 0)
    throw new VaultError('invalid_request', 'Expected an API key, received an empty one.');
  const baseUrl = validateBaseUrl(settings.baseUrl);
  const apiRoot = baseUrl + settings.apiPath.replace(/\/+$/, '');
  const redact = createRedactor([apiKey]);
  const fetch = settings.fetch ?? platformFetch;
  const planner = createCallPlanner({
    apiRoot,
    apiKey,
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
    // 429s are waited out as on TeamPass 3, within the same bounds (read from `session`, where
    // they were TeamPass 3's own).
    rateLimit: {
      retries: options.session?.rateLimitRetries ?? DEFAULT_RATE_LIMIT.retries,
      maxRetryAfterMs: options.session?.maxRetryAfterMs ?? DEFAULT_RATE_LIMIT.maxRetryAfterMs,
      sleep: options.session?.sleep,
    },
    redact,
    onRequest: settings.onRequest,
  });
  const keyOption: KeyTransportOption = settings.keyTransport ?? 'auto';
  const remembered = knownIdentification(options);
  const known =
    options.server === 'teampass-compatible'
      ? { info: undefined }
      : remembered === undefined
        ? undefined
        : { info: remembered };
  const requestOrigin = settings.requestOrigin ?? browserOrigin();
  const probe = createServerProbe({
    apiRoot,
    fetch,
    headers: settings.headers,
    timeoutMs: settings.timeoutMs,
    keyTransport: keyOption,
    identify: context.identify,
    // TeamPass 2 identified itself when the connection was made, a Vaultline server's answer was
    // kept: not asked again.
    known: known === undefined ? undefined : capabilitiesOf(known.info, keyOption),
  });
  let disposed = false;

  /**
   * Whether a call needs the server's identification before it is planned: always with
   * `keyTransport: 'auto'` (where the key goes), and for a list of several ids (how many one call
   * may carry). A forced transport and a single id need no request first.
   */
  function needsIdentification(definition: EndpointDefinition, input: unknown): boolean {
    if (keyOption === 'auto') return true;
    if (!definition.batch) return false;
    const ids = (input as Record<string, unknown>)[definition.batch.param];
    return Array.isArray(ids) && ids.length > 1;
  }

  async function call<K extends EndpointName>(
    name: K,
    input: EndpointInput<K>,
    callOptions?: CallOptions,
  ): Promise<EndpointOutput<K>> {
    if (disposed) throw new VaultError('aborted', 'The vault client was disposed.', { endpoint: name });
    const definition: EndpointDefinition = endpoints[name];
    let server: ServerCapabilities | undefined = probe.known();
    if (server === undefined && needsIdentification(definition, input)) server = await probe.get();
    if (keyOption === 'auto' && !server!.detected) {
      // The server did not say what it is: its key goes nowhere, least of all into a URL.
      throw await explained(unidentifiedError(name, definition, probe.unidentified()));
    }
    const transport = keyOption === 'auto' ? server!.keyTransport : keyOption;
    const plan = planner.plan(name, input, transport, server?.maxIds ?? DEFAULT_MAX_IDS);
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
      throw await explained(error);
    }
  }

  let keyAnswer: KeyAnswer | undefined = options.keyAnswer;
  let keyAnswerPending: Promise<KeyAnswer | undefined> | undefined;

  /** What the server says of this key (asked once with it; an unknown answer is asked again next time). */
  async function askKey(server: ServerCapabilities, refresh: boolean): Promise<KeyAnswer | undefined> {
    if (refresh) keyAnswer = undefined;
    if (keyAnswer !== undefined) return keyAnswer;
    keyAnswerPending ??= identifyKey(
      { apiRoot, fetch, headers: settings.headers, timeoutMs: settings.timeoutMs },
      (keyOption === 'auto' ? server.keyTransport : keyOption) === 'header'
        ? { headers: { authorization: `Bearer ${apiKey}` }, query: '' }
        : { headers: {}, query: `?apikey=${encodeURIComponent(apiKey)}` },
    ).finally(() => {
      keyAnswerPending = undefined;
    });
    const learned = await keyAnswerPending;
    if (learned !== undefined) {
      keyAnswer = learned;
      options.onKeyAnswer?.(learned);
    }
    return learned;
  }

  /**
   * The capabilities this key gets: the identification's, and on a Vaultline server that reports
   * `word-search`, the key's own rules, asked once with the key (a `teampass`-profile key gets
   * TeamPass's label search).
   *
   * Why this is asked in `capabilities()` and not later, when a search reads `search`: `search`
   * is a plain field of the object apps hold and hand back to `searchItems`
   * (`options.capabilities`), read synchronously; a getter cannot wait for a request, and any value
   * given before the answer would be wrong for one of the two key profiles (`words` lets a search
   * trust a word search a `teampass`-profile key does not get; `full` makes every other key's
   * searches fetch whole folders). It costs one request per client, on Vaultline servers with
   * `word-search` only, and never before a plain call: `call` reads the keyless identification.
   */
  async function capabilitiesForKey(refresh: boolean): Promise<ServerCapabilities> {
    const server = await probe.get(refresh);
    if (server.server !== 'vaultline' || server.search !== 'words') return server;
    // Unknown (no answer, a refused key): TeamPass's search for now, asked again next time.
    return withKeyRules(server, (await askKey(server, refresh))?.rules);
  }

  /** In a browser, no answer may be a CORS refusal of a running server: the error tells which. */
  async function explained(error: unknown): Promise<unknown> {
    if (isVaultError(error, 'network') && error.reason === undefined) {
      const diagnosis = await explainNetworkFailure(baseUrl, {
        fetch,
        requestOrigin,
        timeoutMs: settings.timeoutMs,
      });
      if (diagnosis) return withNetworkReason(error, diagnosis);
    }
    return error;
  }

  /**
   * The error of a call refused because the keyless identification identified nothing: nothing
   * was sent with the key.
   */
  function unidentifiedError(
    name: EndpointName,
    definition: EndpointDefinition,
    failure: ReturnType<typeof probe.unidentified>,
  ): VaultError {
    const url = `${apiRoot}${SERVER_INFO_PATH}`;
    const reason = failure?.reason ?? 'network';
    const unsent = 'the key was not sent';
    const details = { endpoint: name, url, status: failure?.status };
    const operation = definition.operation;
    if (failure?.status === undefined) {
      return reason === 'timeout'
        ? new VaultError(
            'timeout',
            `${operation}: the vault did not answer its identification in time; ${unsent}.`,
            details,
          )
        : new VaultError(
            'network',
            `${operation}: could not reach the vault (${failure?.detail ?? 'no answer'}) to identify it; ${unsent}.`,
            details,
          );
    }
    if (failure.status >= 500 || failure.status === 408 || failure.status === 429) {
      return new VaultError(
        failure.status === 429 ? 'rate_limited' : 'server',
        `${operation}: the vault's identification (${url}) answered ${reason}; ${unsent}. Try again shortly.`,
        details,
      );
    }
    return new VaultError(
      'invalid_response',
      `${operation}: ${url} answered ${reason}, so ${baseUrl} is not the vault's API as given; ${unsent}. Check the URL: the vault's base URL, the part before /api/index.php.`,
      details,
    );
  }

  const methods = Object.fromEntries(
    ENDPOINT_NAMES.map((name) => [
      name,
      (input: never, callOptions?: CallOptions) => call(name, input, callOptions),
    ]),
  ) as unknown as WireMethods;
  const client: WireMethods = methods;

  return {
    ...methods,
    baseUrl,
    redact,
    capabilities: (capabilityOptions) => capabilitiesForKey(capabilityOptions?.refresh ?? false),
    call,
    getItem: (id, callOptions) => readOneItem(client, id, callOptions),
    updateItemFields: (id, changes, callOptions) => mergeItemFields(client, id, changes, callOptions),
    // read/otp exists on a Vaultline server that says `otp`; elsewhere nothing is sent.
    readOtp: async (input, callOptions) => {
      if (!(await probe.get()).otp) return noOtp();
      return call('readOtp', input, callOptions);
    },
    readTags: unsupported('readTags', 'tags to list', 'tags'),
    // The legacy API sends a folder whole: one page.
    async *itemPages(ids, callOptions) {
      yield await call('readFolders', { ids }, callOptions);
    },
    findByUrl: unsupported('findByUrl', 'lookup by URL', 'urlLookup'),
    // The login the credentials name, else what a Vaultline server says the key acts as (a key of a
    // user, a machine key in front of TeamPass 3); TeamPass 2's key acts for nobody in particular.
    // A Vaultline server enforces the rights of the user a key belongs to: `enforced` when that
    // user is the login.
    identity: async () => {
      if (disposed) throw new VaultError('aborted', 'The vault client was disposed.');
      const configured = options.login !== undefined && options.login !== '' ? options.login : undefined;
      const server = probe.known() ?? (keyOption === 'auto' ? await probe.get() : undefined);
      const key = server?.server === 'vaultline' ? await askKey(server, false) : undefined;
      const login = configured ?? key?.login;
      return {
        login,
        userId: undefined,
        administrator: undefined,
        api: undefined,
        enforced: login !== undefined && key?.login === login,
      };
    },
    dispose: async () => {
      disposed = true;
    },
  };
}

const noOtp = unsupported('readOtp', 'one-time codes', 'otp');

/** A method the legacy API has no operation for: it fails before sending anything. */
function unsupported(method: string, what: string, capability: string): () => Promise<never> {
  return async () => {
    throw new VaultError(
      'unsupported',
      `${method}: the legacy API has no ${what} (capabilities: ${capability} false); nothing was sent.`,
      { endpoint: method },
    );
  };
}

/**
 * Checks a legacy base URL (`internal/base-url.ts`: no query, fragment or credentials); a URL that
 * already names the API path is cut back to the base.
 *
 * @param baseUrl The URL as given.
 * @returns The base URL without a trailing slash.
 * @throws {VaultError} `invalid_request` for anything else.
 */
export function validateBaseUrl(baseUrl: string): string {
  return checkBaseUrl(baseUrl, /\/api(\/index\.php)?$/);
}

function stripUndefined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
