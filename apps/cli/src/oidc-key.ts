/**
 * Keyless sign-in for CI jobs and pods: with `VAULTLINE_URL` and an OIDC identity token
 * (`VAULTLINE_OIDC_TOKEN`, or `VAULTLINE_OIDC_TOKEN_FILE`, read anew by each command so that a
 * rotated token, as Kubernetes writes it, is the one used), the CLI exchanges the token for a
 * short-lived key (the core's `exchangeOidcToken`) and keeps the key until it expires, so that the
 * commands of a job exchange once. The key waits in the cache directory sealed as the session
 * token is (`@vaultline/sealer/node`), with the identity token as the key material: only a process
 * holding the same token opens it; a rotated token exchanges again.
 *
 * @module
 */

import { readFile } from 'node:fs/promises';
import { EXIT, exchangeOidcToken, isVaultError } from '@vaultline/protocol';
import { jsonCodec, sealedCache } from '@vaultline/sealer/node';
import * as v from 'valibot';
import { ENV } from './constants.ts';
import type { CliEnvironment } from './env.ts';
import { CliError } from './errors.ts';

/** A key is used while it has at least this long to live: cached, or held by a long-lived process. */
export const EXPIRY_MARGIN_MS = 60_000;

const CachedKeySchema = v.object({
  apiKey: v.string(),
  expiresAt: v.number(),
  login: v.optional(v.string()),
});

/** A file per vault and policy (`oidc-<hash>.json`), sealed with the identity token. */
const cachedKeys = sealedCache({
  // Names the format, and separates its keys from any other use of the same secrets.
  label: 'vaultline oidc key cache v1',
  prefix: 'oidc',
  what: 'exchanged key',
  codec: jsonCodec(CachedKeySchema),
});

/** Where the key of a vault and policy is cached. */
function cacheOf(env: CliEnvironment, url: string) {
  return cachedKeys({ dir: env.cacheDir, url, scope: env.oidcPolicy ?? '' });
}

/** What a key is sealed with: the identity token. */
function materialOf(token: string): string {
  return JSON.stringify(['oidc', token]);
}

/**
 * Whether the environment signs in with an identity token.
 *
 * @param env The environment.
 * @returns Whether `VAULTLINE_OIDC_TOKEN` or `VAULTLINE_OIDC_TOKEN_FILE` is set.
 */
export function hasOidcToken(env: CliEnvironment): boolean {
  return env.oidcToken !== undefined || env.oidcTokenFile !== undefined;
}

async function tokenOf(env: CliEnvironment): Promise<string> {
  if (env.oidcToken !== undefined) return env.oidcToken.trim();
  const path = env.oidcTokenFile!;
  try {
    const token = (await readFile(path, 'utf8')).trim();
    if (token !== '') return token;
  } catch (error) {
    throw new CliError(
      'oidc_token_unreadable',
      `${ENV.oidcTokenFile} names ${path}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
      EXIT.auth,
    );
  }
  throw new CliError(
    'oidc_token_unreadable',
    `${ENV.oidcTokenFile} names ${path}, which is empty.`,
    EXIT.auth,
  );
}

/**
 * The API key of an identity token: the cached one while it lives, else a new exchange.
 *
 * @param env The environment (the token, the policy, the cache directory).
 * @param url The vault's URL.
 * @param warn Told once when the key cannot be cached.
 * @returns The key, when it expires (ms since the epoch), and the login it acts as when the vault says.
 * @throws {CliError} `oidc_refused` (exit 4) when the vault refuses the token, with its words.
 */
export async function oidcApiKey(
  env: CliEnvironment,
  url: string,
  warn?: (message: string) => void,
): Promise<{ apiKey: string; expiresAt: number; login: string | undefined }> {
  const token = await tokenOf(env);
  const cache = cacheOf(env, url);
  const cached = await cache.get(materialOf(token));
  if (cached !== undefined && cached.expiresAt - Date.now() > EXPIRY_MARGIN_MS)
    return { apiKey: cached.apiKey, expiresAt: cached.expiresAt, login: cached.login };
  let exchanged: Awaited<ReturnType<typeof exchangeOidcToken>>;
  try {
    exchanged = await exchangeOidcToken({ baseUrl: url, token, policy: env.oidcPolicy });
  } catch (error) {
    if (isVaultError(error, 'unauthorized', 'invalid_request', 'not_found'))
      throw new CliError(
        'oidc_refused',
        `The vault at ${url} refused the OIDC token of ${env.oidcToken !== undefined ? ENV.oidcToken : ENV.oidcTokenFile}: ${error.serverMessage ?? error.message} An administrator sets what it may carry (vaultline-server trust list).`,
        EXIT.auth,
        { cause: error },
      );
    throw error;
  }
  await cache.set(
    materialOf(token),
    { apiKey: exchanged.apiKey, expiresAt: exchanged.expiresAt, login: exchanged.login },
    warn,
  );
  return { apiKey: exchanged.apiKey, expiresAt: exchanged.expiresAt, login: exchanged.login };
}

/**
 * Drops the cached key of a vault, so that the next {@link oidcApiKey} exchanges again: for a
 * key the vault refused before its time (revoked).
 *
 * @param env The environment (the policy, the cache directory).
 * @param url The vault's URL.
 */
export async function forgetOidcKey(env: CliEnvironment, url: string): Promise<void> {
  await cacheOf(env, url).forget();
}
