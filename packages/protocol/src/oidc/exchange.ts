/**
 * The OIDC exchange: a workload (a CI job, a pod) trades the identity token its platform gave it
 * for a short-lived API key of a Vaultline server, under a trust policy the server's administrator
 * set (`vaultline-server trust add`). No stored secret on the workload's side.
 *
 * @see ../../../../docs/api.md#oidc-exchange
 * @module
 */

import * as v from 'valibot';
import { createRedactor, VaultError, type VaultErrorCode } from '../errors.ts';
import { ErrorBodySchema } from '../legacy/schemas.ts';

/** The path of the exchange, after the API prefix (`/api`): `POST /api/auth/oidc`. */
export const OIDC_EXCHANGE_PATH = '/auth/oidc';

/** The body of an exchange request: the token, and the trust policy to use (optional). */
export const OidcExchangeRequestSchema = v.strictObject({
  /** The identity token (a signed JWT), as the platform gave it. */
  token: v.pipe(v.string(), v.minLength(1), v.maxLength(16_384)),
  /** The trust policy's name; without it, the one policy of the token's issuer whose claims match. */
  policy: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(100))),
});

/** An exchange request. */
export type OidcExchangeRequest = v.InferOutput<typeof OidcExchangeRequestSchema>;

/** The answer of an exchange: the key, its label, when it expires, and the policy that issued it. */
export const OidcExchangeResultSchema = v.object({
  /** The API key, shown once. */
  key: v.pipe(v.string(), v.minLength(1)),
  /** Its label (`oidc/<policy>/<random>`): what the audit and `keys list` name. */
  label: v.string(),
  /** When it stops working, ISO 8601: never after the token's own expiry nor the policy's TTL. */
  expires_at: v.pipe(v.string(), v.isoTimestamp()),
  /** The trust policy that issued it. */
  policy: v.string(),
  /** The login the key acts as, when the policy binds it to a user of the server's vault. */
  login: v.optional(v.string()),
});

/** An exchange's answer. */
export type OidcExchangeResult = v.InferOutput<typeof OidcExchangeResultSchema>;

/** Options of {@link exchangeOidcToken}. */
export interface OidcExchangeOptions {
  /** The server's base URL (`https://vault.example.com`). */
  baseUrl: string;
  /** The identity token. */
  token: string;
  /** The trust policy's name, when the server should not pick it. */
  policy?: string | undefined;
  /** The `fetch` to use; the global one by default. */
  fetch?: typeof globalThis.fetch | undefined;
  /** Time allowed for the exchange, in ms; 30 s by default. */
  timeoutMs?: number | undefined;
}

/** A key got by an exchange. */
export interface ExchangedKey {
  /** The API key. */
  readonly apiKey: string;
  /** Its label. */
  readonly label: string;
  /** When it stops working, in ms since the epoch. */
  readonly expiresAt: number;
  /** The login it acts as, when the server says (a key bound to a user). */
  readonly login: string | undefined;
}

const STATUS_CODES: Readonly<Record<number, VaultErrorCode>> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  413: 'too_large',
  429: 'rate_limited',
};

/**
 * Exchanges an identity token for a short-lived API key (`POST /api/auth/oidc`, the token in the
 * body). Neither the token nor the key is ever in an error.
 *
 * @param options The server, the token, and the policy.
 * @returns The key and when it expires.
 * @throws {VaultError} `unauthorized` when the server refuses the token (its words say why),
 *   `network` or `timeout` when it cannot be reached, `invalid_response` for an answer of another shape.
 * @see ../../../../docs/api.md#oidc-exchange
 * @example
 * ```ts
 * const { apiKey } = await exchangeOidcToken({ baseUrl, token: process.env.VAULTLINE_OIDC_TOKEN! });
 * await using vault = createVaultClient({ baseUrl, auth: apiKey });
 * ```
 */
export async function exchangeOidcToken(options: OidcExchangeOptions): Promise<ExchangedKey> {
  const url = `${options.baseUrl.replace(/\/+$/, '').replace(/\/api(\/index\.php)?$/, '')}/api${OIDC_EXCHANGE_PATH}`;
  const redact = createRedactor([options.token]);
  const body: OidcExchangeRequest = {
    token: options.token,
    ...(options.policy === undefined ? {} : { policy: options.policy }),
  };
  let response: Response;
  let text: string;
  try {
    response = await (options.fetch ?? globalThis.fetch)(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
    text = await response.text();
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    throw new VaultError(
      timedOut ? 'timeout' : 'network',
      redact(`auth/oidc: ${timedOut ? 'no answer in time' : 'could not reach'} ${url}.`),
      { url, ...(timedOut ? {} : { reason: 'unreachable' as const }) },
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  if (!response.ok) {
    const error = v.safeParse(ErrorBodySchema, data);
    const words = error.success ? redact(error.output.err) : `HTTP ${response.status}`;
    throw new VaultError(
      STATUS_CODES[response.status] ?? 'server',
      `auth/oidc failed: ${words} (HTTP ${response.status}).`,
      { status: response.status, url, ...(error.success ? { serverMessage: words } : {}) },
    );
  }
  const result = v.safeParse(OidcExchangeResultSchema, data);
  if (!result.success)
    throw new VaultError('invalid_response', 'auth/oidc answered a body of an unexpected shape.', {
      status: response.status,
      url,
    });
  return {
    apiKey: result.output.key,
    label: result.output.label,
    expiresAt: Date.parse(result.output.expires_at),
    login: result.output.login,
  };
}
