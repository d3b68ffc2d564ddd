/**
 * `createVaultClient`'s options as every layer under it reads them: the same shape, by the same
 * names, with the credentials read from `auth` and the defaults applied once (`settingsOf`), and
 * what the one transport reads of them (`transportSettingsOf`).
 *
 * @module
 */

import type { ClientSettings } from '../client/types.ts';
import { type Redactor, VaultError } from '../errors.ts';
import { DEFAULT_RATE_LIMIT, type TransportSettings } from '../transport/transport.ts';
import type { VaultAuth, VaultClientOptions, VaultCredentials } from './types.ts';

/**
 * The credentials of an `auth` option: a string is an API key.
 *
 * @param auth The option.
 * @returns The credentials.
 * @throws {VaultError} `invalid_request` for anything but a string or an object.
 */
export function credentialsOf(auth: VaultAuth | undefined): VaultCredentials {
  if (typeof auth === 'string') return { apiKey: auth };
  if (typeof auth === 'object' && auth !== null) return auth;
  throw new VaultError(
    'invalid_request',
    'Expected auth to be an API key or { apiKey, login, password, personalAccessToken }, received none.',
  );
}

/**
 * The secrets of credentials, never the login: what a log redacts while the credentials are held.
 *
 * @param credentials The credentials.
 * @returns The password, the API key and the personal access token that are set.
 */
export function secretsOf(credentials: VaultCredentials): string[] {
  return [credentials.password, credentials.apiKey, credentials.personalAccessToken].filter(
    (secret): secret is string => typeof secret === 'string' && secret !== '',
  );
}

/** The defaults of `VaultClientOptions`, in one place (the README's options table says the same). */
export const DEFAULT_SETTINGS = {
  timeoutMs: 10_000,
  maxResponseBytes: 64 * 1024 * 1024,
  retry: {
    retries: 2,
    delayMs: 200,
    rateLimitRetries: DEFAULT_RATE_LIMIT.retries,
    maxRetryAfterMs: DEFAULT_RATE_LIMIT.maxRetryAfterMs,
  },
  legacy: { keyTransport: 'auto', apiPath: '/api/index.php', folderEncoding: 'blob', maxUrlLength: 8192 },
  teampass3: { refreshMarginMs: 60_000, maxItems: 100_000, pageSize: 500, concurrency: 4 },
} as const;

/**
 * The settings every layer under `createVaultClient` reads: the public options by their own
 * names, with the credentials read from `auth` and the defaults applied, once.
 *
 * @param options The public options.
 * @returns The settings.
 * @throws {VaultError} `invalid_request` for an `auth` that is neither a key nor credentials.
 */
export function settingsOf(options: VaultClientOptions): ClientSettings {
  const { retry = {}, legacy = {}, teampass3 = {}, clock = {} } = options;
  const defaults = DEFAULT_SETTINGS;
  return {
    baseUrl: options.baseUrl,
    credentials: credentialsOf(options.auth),
    dialect: options.dialect,
    server: options.server,
    identification: options.identification,
    onDetected: options.onDetected,
    fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
    headers: options.headers ?? {},
    timeoutMs: options.timeoutMs ?? defaults.timeoutMs,
    maxResponseBytes: options.maxResponseBytes ?? defaults.maxResponseBytes,
    retry: {
      retries: retry.retries ?? defaults.retry.retries,
      delayMs: retry.delayMs ?? defaults.retry.delayMs,
      rateLimitRetries: retry.rateLimitRetries ?? defaults.retry.rateLimitRetries,
      maxRetryAfterMs: retry.maxRetryAfterMs ?? defaults.retry.maxRetryAfterMs,
    },
    onRequest: options.onRequest,
    requestOrigin: options.requestOrigin,
    legacy: {
      keyTransport: legacy.keyTransport ?? defaults.legacy.keyTransport,
      apiPath: legacy.apiPath ?? defaults.legacy.apiPath,
      folderEncoding: legacy.folderEncoding ?? defaults.legacy.folderEncoding,
      maxUrlLength: legacy.maxUrlLength ?? defaults.legacy.maxUrlLength,
      keyAnswer: legacy.keyAnswer,
      onKeyAnswer: legacy.onKeyAnswer,
    },
    teampass3: {
      tokenCache: teampass3.tokenCache,
      refreshMarginMs: teampass3.refreshMarginMs ?? defaults.teampass3.refreshMarginMs,
      maxItems: teampass3.maxItems ?? defaults.teampass3.maxItems,
      pageSize: teampass3.pageSize ?? defaults.teampass3.pageSize,
      concurrency: Math.max(1, teampass3.concurrency ?? defaults.teampass3.concurrency),
      keepOtpSecrets: teampass3.keepOtpSecrets === true,
    },
    clock: { now: clock.now ?? Date.now, sleep: clock.sleep },
  };
}

/**
 * What the one transport reads (`transport/transport.ts`), from the settings: the same for both
 * dialects.
 *
 * @param settings The client's settings.
 * @param redact Removes the client's secrets from anything reported.
 * @returns The transport's settings.
 */
export function transportSettingsOf(
  settings: Pick<
    ClientSettings,
    'fetch' | 'timeoutMs' | 'retry' | 'maxResponseBytes' | 'clock' | 'onRequest'
  >,
  redact: Redactor,
): TransportSettings {
  const { retry } = settings;
  return {
    fetch: settings.fetch,
    timeoutMs: settings.timeoutMs,
    retries: retry.retries,
    retryDelayMs: retry.delayMs,
    maxResponseBytes: settings.maxResponseBytes,
    rateLimit: {
      retries: retry.rateLimitRetries,
      maxRetryAfterMs: retry.maxRetryAfterMs,
      sleep: settings.clock.sleep,
    },
    redact,
    onRequest: settings.onRequest,
  };
}
