/**
 * The legacy client: one method per row of the endpoint table, derived, over the one transport
 * of both dialects (`transport/transport.ts`: HTTP, retries, 429s, time and body limits). This
 * file is the wiring; each concern lives in a file of its own beside it: `attempt.ts` (the legacy
 * API's reading of an answer), `plan.ts` (paths, the key, batching and URL limits), `helpers.ts`
 * (read-merge-write), `capabilities.ts` (what the server can do), `reachability.ts` (why a browser
 * got no answer). `client/open.ts` picks it or the TeamPass 3 adapter.
 *
 * @module
 */

import type { IdentifyRequest, KeyTransportOption, ServerCapabilities } from '../capabilities.ts';
import type { CallOptions, ClientSettings, WireClient, WireMethods } from '../client/types.ts';
import { createRedactor, isVaultError, VaultError } from '../errors.ts';
import { validateBaseUrl } from '../internal/base-url.ts';
import { transportSettingsOf } from '../vault/options.ts';
import { createSender } from './attempt.ts';
import {
  capabilitiesOf,
  createServerProbe,
  DEFAULT_MAX_IDS,
  type Identification,
  identifyKey,
  type KeyAnswer,
  type ServerProbe,
  withKeyRules,
} from './capabilities.ts';
import {
  ENDPOINT_NAMES,
  type EndpointDefinition,
  type EndpointInput,
  type EndpointName,
  type EndpointOutput,
  endpoints,
} from './endpoints.ts';
import { mergeItemFields, readOneItem } from './helpers.ts';
import { createCallPlanner } from './plan.ts';
import { browserOrigin, explainNetworkFailure, withNetworkReason } from './reachability.ts';
import { SERVER_INFO_PATH, type ServerInfo } from './server-info.ts';

/** What the dialect pick hands a legacy client it creates. */
export interface LegacyClientContext {
  /** Reads the identification the detection already made (or makes a new one): no second request. */
  identify?: (() => Promise<Identification>) | undefined;
  /**
   * A Vaultline server's earlier identification that may stand for a new one (read once, by the
   * dialect pick, from `identification`): the server is not asked again.
   */
  remembered?: ServerInfo | undefined;
}

/**
 * Creates a client of a vault that speaks the legacy API (the Vaultline server, TeamPass 2).
 *
 * @param settings The client's settings (`vault/options.ts`).
 * @param context What the dialect pick shares with it.
 * @returns The client.
 */
export function createLegacyVaultClient(
  settings: ClientSettings,
  context: LegacyClientContext = {},
): WireClient {
  const apiKey = settings.credentials.apiKey ?? '';
  if (apiKey.length === 0)
    throw new VaultError('invalid_request', 'Expected an API key, received an empty one.');
  const { fetch, headers, timeoutMs, legacy } = settings;
  const baseUrl = validateBaseUrl(settings.baseUrl);
  const apiRoot = baseUrl + legacy.apiPath.replace(/\/+$/, '');
  const redact = createRedactor([apiKey]);
  const planner = createCallPlanner({
    apiRoot,
    apiKey,
    maxUrlLength: legacy.maxUrlLength,
    context: { folderEncoding: legacy.folderEncoding },
    headers: { accept: 'application/json, */*;q=0.5', ...headers },
  });
  // Retries and 429 waits as on TeamPass 3: the one transport, with the same settings.
  const send = createSender(transportSettingsOf(settings, redact));
  const keyOption: KeyTransportOption = legacy.keyTransport;
  const { remembered } = context;
  const known =
    settings.server === 'teampass-compatible'
      ? { info: undefined }
      : remembered === undefined
        ? undefined
        : { info: remembered };
  const requestOrigin = settings.requestOrigin ?? browserOrigin();
  const probe = createServerProbe({
    apiRoot,
    fetch,
    headers,
    timeoutMs,
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
      throw await explained(unidentifiedError({ apiRoot, baseUrl }, name, definition, probe.unidentified()));
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

  const askKey = createKeyAsker({
    request: { apiRoot, fetch, headers, timeoutMs },
    apiKey,
    keyTransport: keyOption,
    known: legacy.keyAnswer,
    onKeyAnswer: legacy.onKeyAnswer,
  });

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
        timeoutMs,
      });
      if (diagnosis) return withNetworkReason(error, diagnosis);
    }
    return error;
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
      const { login: given } = settings.credentials;
      const configured = given !== undefined && given !== '' ? given : undefined;
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

/** What {@link createKeyAsker} needs. */
interface KeyAskerOptions {
  /** Where and how `info/version` is asked. */
  readonly request: IdentifyRequest;
  /** The key. */
  readonly apiKey: string;
  /** The client's key transport option (`auto`: as the identification allows). */
  readonly keyTransport: KeyTransportOption;
  /** What the server answered before (`legacy.keyAnswer`): not asked again. */
  readonly known: KeyAnswer | undefined;
  /** Told when the server said what this key gets (`legacy.onKeyAnswer`). */
  readonly onKeyAnswer: ((answer: KeyAnswer) => void) | undefined;
}

/**
 * What the server says of this key: asked once with it (concurrent askers share the request); an
 * unknown answer is asked again next time, `refresh` asks again.
 */
function createKeyAsker(
  options: KeyAskerOptions,
): (server: ServerCapabilities, refresh: boolean) => Promise<KeyAnswer | undefined> {
  const { apiKey, keyTransport } = options;
  let keyAnswer = options.known;
  let pending: Promise<KeyAnswer | undefined> | undefined;
  return async (server, refresh) => {
    if (refresh) keyAnswer = undefined;
    if (keyAnswer !== undefined) return keyAnswer;
    pending ??= identifyKey(
      options.request,
      (keyTransport === 'auto' ? server.keyTransport : keyTransport) === 'header'
        ? { headers: { authorization: `Bearer ${apiKey}` }, query: '' }
        : { headers: {}, query: `?apikey=${encodeURIComponent(apiKey)}` },
    ).finally(() => {
      pending = undefined;
    });
    const learned = await pending;
    if (learned !== undefined) {
      keyAnswer = learned;
      options.onKeyAnswer?.(learned);
    }
    return learned;
  };
}

/**
 * The error of a call refused because the keyless identification identified nothing: nothing
 * was sent with the key.
 */
function unidentifiedError(
  where: { readonly apiRoot: string; readonly baseUrl: string },
  name: EndpointName,
  definition: EndpointDefinition,
  failure: ReturnType<ServerProbe['unidentified']>,
): VaultError {
  const { apiRoot, baseUrl } = where;
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
