/**
 * `createVaultClient`'s options as every layer under it reads them: the same shape, by the same
 * names, with the credentials read from `auth` and the defaults applied once (`settingsOf`), and
 * what the one transport reads of them (`transportSettingsOf`).
 *
 * @module
 */

import type { ClientSettings } from '../client/types.ts';
import type { Redactor } from '../errors.ts';
import { DEFAULT_RATE_LIMIT, platformFetch, type TransportSettings } from '../transport/transport.ts';
import { credentialsOf, fieldsOf } from './credentials.ts';
import type { VaultClientOptions } from './types.ts';

export { credentialsOf, secretsOf } from './credentials.ts';

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
  teampass3: {
    refreshMarginMs: 60_000,
    maxItems: 100_000,
    pageSize: 500,
    concurrency: 4,
    keepOtpSecrets: false,
  },
  headers: {},
  dialect: undefined,
  server: undefined,
  identification: undefined,
  onDetected: undefined,
  onRequest: undefined,
  requestOrigin: undefined,
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
  const { auth, ...rest } = options;
  const defaults = DEFAULT_SETTINGS;
  const teampass3 = { ...defaults.teampass3, tokenCache: undefined, ...given(options.teampass3) };
  return {
    ...defaults,
    ...given(rest),
    baseUrl: options.baseUrl,
    credentials: fieldsOf(credentialsOf(auth)),
    fetch: options.fetch ?? platformFetch,
    retry: { ...defaults.retry, ...given(options.retry) },
    legacy: { ...defaults.legacy, keyAnswer: undefined, onKeyAnswer: undefined, ...given(options.legacy) },
    teampass3: { ...teampass3, concurrency: Math.max(1, teampass3.concurrency) },
    clock: { now: Date.now, sleep: undefined, ...given(options.clock) },
  };
}

/** The fields of options that are set: a field set to `undefined` leaves its default in place. */
function given<T extends object>(options: T | undefined): { [K in keyof T]?: Exclude<T[K], undefined> } {
  if (options === undefined) return {};
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
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
