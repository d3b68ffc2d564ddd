/**
 * The client of `dialect: 'auto'`: one `WireClient` that detects the server's dialect once (one
 * keyless request, shared with the legacy client's own identification so that it is never sent
 * twice) and hands every call to the implementation of that dialect, created on first use: the
 * legacy client, or the TeamPass 3 adapter. It holds no dialect knowledge of its own.
 *
 * @module
 */

import {
  capabilitiesOfDetection,
  createDialectProbe,
  type Detection,
  identifyRequestOf,
} from '../dialect.ts';
import { createRedactor, type Redactor, VaultError, withTokensRedacted } from '../errors.ts';
import { untilAborted } from '../internal/abort.ts';
import type { Identification } from '../legacy/capabilities.ts';
import type { EndpointInput, EndpointName, EndpointOutput } from '../legacy/endpoints.ts';
import { ENDPOINT_NAMES } from '../legacy/endpoints.ts';
import { createTeamPass3Client, teampass3CredentialsOf } from '../teampass3/adapter.ts';
import type { CredentialFields } from '../vault/credentials.ts';
import { secretsOf } from '../vault/credentials.ts';
import type { CallOptions, ClientSettings, WireClient, WireMethods } from './types.ts';

/**
 * A redactor for every secret a client may hold: the API key, the password, the personal access
 * token, and any session token.
 *
 * @param credentials The client's credentials.
 * @returns The redactor.
 */
export function clientRedactor(credentials: CredentialFields): Redactor {
  const secrets = createRedactor(secretsOf(credentials));
  return (text) => withTokensRedacted(secrets(text));
}

/**
 * Creates the client of `dialect: 'auto'`.
 *
 * @param settings The client's settings (the base URL already checked).
 * @param createLegacy Creates the legacy client, whose identification reads the detection's.
 * @returns The client.
 * @throws {VaultError} `invalid_request` when the credentials can sign in to no dialect.
 */
export function createAutoDialectClient(
  settings: ClientSettings,
  createLegacy: (identify: () => Promise<Identification>) => WireClient,
): WireClient {
  const { credentials } = settings;
  const found = teampass3CredentialsOf(credentials);
  const legacyReady = typeof credentials.apiKey === 'string' && credentials.apiKey !== '';
  const teampass3Ready = 'credentials' in found;
  const signInSecrets = Boolean(credentials.password || credentials.personalAccessToken);
  if (!legacyReady && !teampass3Ready) {
    throw new VaultError(
      'invalid_request',
      signInSecrets
        ? `Expected credentials that can sign in: missing ${'missing' in found ? found.missing : 'an API key'}.`
        : 'Expected an API key, received an empty one.',
    );
  }
  // When the server cannot be told, the credentials say which API was meant.
  const fallback = signInSecrets && teampass3Ready ? 'teampass3' : 'legacy';
  const detecting = createDialectProbe(
    identifyRequestOf({
      baseUrl: settings.baseUrl,
      apiPath: settings.legacy.apiPath,
      fetch: settings.fetch,
      headers: settings.headers,
      timeoutMs: settings.timeoutMs,
    }),
  );
  let told = false;
  const probe: typeof detecting = {
    ...detecting,
    async get(refresh) {
      const detection = await detecting.get(refresh);
      if (!told && detection.dialect !== undefined && settings.onDetected) {
        told = true;
        const { identification } = detection;
        settings.onDetected({
          dialect: detection.dialect,
          server: capabilitiesOfDetection(detection).server,
          identification:
            detection.dialect === 'legacy' && identification.answered ? identification.info : undefined,
        });
      }
      return detection;
    },
  };
  const redact = clientRedactor(credentials);
  let legacy: WireClient | undefined;
  let teampass3: WireClient | undefined;
  let disposed = false;

  function legacyClient(detection: Detection): WireClient {
    if (legacy) return legacy;
    if (!legacyReady) {
      throw new VaultError(
        'unauthorized',
        `${settings.baseUrl} speaks the legacy API (${detection.evidence}), which needs an API key; none was given.`,
      );
    }
    legacy = createLegacy(async () => (await probe.get()).identification);
    return legacy;
  }

  function teampass3Client(detection: Detection): WireClient {
    if (teampass3) return teampass3;
    if (!('credentials' in found)) {
      throw new VaultError(
        'unauthorized',
        `${settings.baseUrl} is a TeamPass 3 server (${detection.evidence}): signing in needs the login and password with the user's API key, or a personal access token; missing ${found.missing}.`,
      );
    }
    teampass3 = createTeamPass3Client(settings, { detected: detection.dialect !== undefined });
    return teampass3;
  }

  async function current(callOptions?: CallOptions): Promise<WireClient> {
    if (disposed) throw new VaultError('aborted', 'The vault client was disposed.');
    const detection = probe.known() ?? (await untilAborted(probe.get(), callOptions?.signal));
    return (detection.dialect ?? fallback) === 'teampass3'
      ? teampass3Client(detection)
      : legacyClient(detection);
  }

  /** The implementation already made for a detection still known: no wait, the common case. */
  function ready(): WireClient | undefined {
    const detection = disposed ? undefined : probe.known();
    if (detection === undefined) return undefined;
    return (detection.dialect ?? fallback) === 'teampass3' ? teampass3 : legacy;
  }

  type Method = (input: never, options?: CallOptions) => Promise<unknown>;
  const methods = Object.fromEntries(
    ENDPOINT_NAMES.map((name) => [
      name,
      (input: never, callOptions?: CallOptions) => {
        const made = ready();
        if (made) return (made[name] as Method)(input, callOptions);
        return current(callOptions).then((client) => (client[name] as Method)(input, callOptions));
      },
    ]),
  ) as unknown as WireMethods;

  return {
    ...methods,
    baseUrl: settings.baseUrl,
    redact,
    async capabilities(capabilityOptions) {
      const refresh = capabilityOptions?.refresh ?? false;
      const detection = await probe.get(refresh);
      if ((detection.dialect ?? fallback) === 'teampass3') {
        if (teampass3) return teampass3.capabilities();
        const capabilities = capabilitiesOfDetection({ ...detection, dialect: 'teampass3' });
        return {
          ...capabilities,
          maxResults: settings.teampass3.maxItems,
          detected: detection.dialect !== undefined,
        };
      }
      // Without a key there is no legacy client to ask: the detection's reading stands.
      if (!legacyReady) return capabilitiesOfDetection(detection);
      // Its identification reads the detection just made: no second request.
      return legacyClient(detection).capabilities({ refresh });
    },
    async call<K extends EndpointName>(
      name: K,
      input: EndpointInput<K>,
      callOptions?: CallOptions,
    ): Promise<EndpointOutput<K>> {
      return (await current(callOptions)).call(name, input, callOptions);
    },
    getItem: async (id, callOptions) => (await current(callOptions)).getItem(id, callOptions),
    updateItemFields: async (id, changes, callOptions) =>
      (await current(callOptions)).updateItemFields(id, changes, callOptions),
    readOtp: async (input, callOptions) => (await current(callOptions)).readOtp(input, callOptions),
    readTags: async (callOptions) => (await current(callOptions)).readTags(callOptions),
    async *itemPages(ids, callOptions) {
      yield* (await current(callOptions)).itemPages(ids, callOptions);
    },
    findByUrl: async (input, callOptions) => (await current(callOptions)).findByUrl(input, callOptions),
    identity: async (callOptions) => (await current(callOptions)).identity(callOptions),
    async dispose(disposeOptions) {
      disposed = true;
      await Promise.all([teampass3?.dispose(disposeOptions), legacy?.dispose(disposeOptions)]);
    },
  };
}
