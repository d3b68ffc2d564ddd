/**
 * A session-token cache kept in memory only.
 *
 * @module
 */
import type { TokenCache } from '../vault/types.ts';

/**
 * A {@link TokenCache} in memory: for a sign-in that checks credentials before the app knows
 * where the token will live (a keychain, a secret store), which then hands the token on.
 *
 * @returns The cache, and the token it holds (undefined before a sign-in or after a sign-out).
 * @example
 * ```ts
 * const check = memoryTokenCache();
 * await createVaultClient({ ...settings, teampass3: { tokenCache: check } }).identity();
 * await keychain.save(check.token);
 * ```
 */
export function memoryTokenCache(): TokenCache & { readonly token: string | undefined } {
  let held: string | undefined;
  return {
    get: () => held,
    set: (token) => {
      held = token;
    },
    get token() {
      return held;
    },
  };
}
