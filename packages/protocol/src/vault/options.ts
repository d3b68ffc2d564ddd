/**
 * `createVaultClient`'s options as the dialects' implementations read them: credentials from
 * `auth`, the `legacy` and `teampass3` options where each dialect looks, the retry settings
 * where the transport looks. One place maps the public shape onto the inner one.
 *
 * @module
 */

import type { WireClientOptions } from '../client/types.ts';
import { credentialsOf, fieldsOf } from './credentials.ts';
import type { VaultClientOptions } from './types.ts';

export { credentialsOf, secretsOf } from './credentials.ts';

/**
 * The inner settings of the public options.
 *
 * @param options The public options.
 * @returns What the dialects' implementations read.
 */
export function wireOptionsOf(options: VaultClientOptions): WireClientOptions {
  const { apiKey, login, password, personalAccessToken } = fieldsOf(credentialsOf(options.auth));
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
