/**
 * `createVaultClient`'s options as the dialects' implementations read them: credentials from
 * `auth`, the `legacy` and `teampass3` options where each dialect looks, the retry settings
 * where the transport looks. One place maps the public shape onto the inner one.
 *
 * @module
 */

import type { WireClientOptions } from '../client/types.ts';
import { VaultError } from '../errors.ts';
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

/**
 * The inner settings of the public options.
 *
 * @param options The public options.
 * @returns What the dialects' implementations read.
 */
export function wireOptionsOf(options: VaultClientOptions): WireClientOptions {
  const { apiKey, login, password, personalAccessToken } = credentialsOf(options.auth);
  const { retry, legacy, teampass3, clock } = options;
  return {
    baseUrl: options.baseUrl,
    apiKey,
    login,
    password,
    personalAccessToken,
    dialect: options.dialect,
    server: options.server,
    identification: options.identification,
    onDetected: options.onDetected,
    fetch: options.fetch,
    headers: options.headers,
    timeoutMs: options.timeoutMs,
    maxResponseBytes: options.maxResponseBytes,
    onRequest: options.onRequest,
    requestOrigin: options.requestOrigin,
    retries: retry?.retries,
    retryDelayMs: retry?.delayMs,
    keyTransport: legacy?.keyTransport,
    apiPath: legacy?.apiPath,
    folderEncoding: legacy?.folderEncoding,
    maxUrlLength: legacy?.maxUrlLength,
    keyAnswer: legacy?.keyAnswer,
    onKeyAnswer: legacy?.onKeyAnswer,
    tokenCache: teampass3?.tokenCache,
    keepOtpSecrets: teampass3?.keepOtpSecrets,
    session: {
      refreshMarginMs: teampass3?.refreshMarginMs,
      maxItems: teampass3?.maxItems,
      pageSize: teampass3?.pageSize,
      concurrency: teampass3?.concurrency,
      maxRetryAfterMs: retry?.maxRetryAfterMs,
      rateLimitRetries: retry?.rateLimitRetries,
      now: clock?.now,
      sleep: clock?.sleep,
    },
  };
}
