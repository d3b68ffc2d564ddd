/**
 * Signing in to TeamPass 3: `auth/authorize` with a login, password and API key, or
 * `auth/authorizeToken` with a personal access token, and what a refusal says.
 *
 * @see ../README.md
 * @module
 */

import type { VaultError } from '../../errors.ts';
import type { TeamPass3Caller } from '../caller.ts';
import type { TeamPass3Credentials } from './types.ts';

/** TeamPass 3's words when it locked sign-ins after repeated failures (of the login, or of the address). */
const LOCKED_WORDS = /^login failed\.\s*\(account temporarily locked\)$/i;

/**
 * The error of a refused sign-in, marked `sign_in_refused`: TeamPass answers a wrong login,
 * password, API key or personal access token, and a user without API access, all alike; or
 * `sign_in_locked` when it said the sign-in was locked for a while, which is not about the
 * credentials.
 */
function signInRefused(error: VaultError): VaultError {
  const locked = LOCKED_WORDS.test((error.serverMessage ?? '').trim());
  return error.with({ reason: locked ? 'sign_in_locked' : 'sign_in_refused' });
}

/**
 * Signs in once.
 *
 * @param caller The transport.
 * @param credentials How to sign in.
 * @returns The token TeamPass issued, and the answer's status.
 * @throws {VaultError} With the reason `sign_in_refused` or `sign_in_locked` when refused.
 */
export async function signIn(
  caller: TeamPass3Caller,
  credentials: TeamPass3Credentials,
): Promise<{ token: string; status: number }> {
  const result =
    'personalAccessToken' in credentials
      ? await caller.send('authorizeToken', {
          login: credentials.login,
          token: credentials.personalAccessToken,
        })
      : await caller.send('authorize', {
          login: credentials.login,
          password: credentials.password,
          apikey: credentials.apiKey,
        });
  if (!result.ok) throw result.error.code === 'unauthorized' ? signInRefused(result.error) : result.error;
  return { token: result.data.token, status: result.status };
}
