/**
 * Signing out of TeamPass 3: `auth/logout` for a token still valid.
 *
 * @see ../README.md
 * @module
 */

import type { TeamPass3Caller } from '../caller.ts';
import type { HeldToken } from './types.ts';

/**
 * Signs a token out, unless it has expired (then there is nothing to undo).
 *
 * @param caller The transport.
 * @param entry The token held, if any.
 * @param now The clock.
 */
export async function signOut(
  caller: TeamPass3Caller,
  entry: HeldToken | undefined,
  now: () => number,
): Promise<void> {
  if (entry && entry.claims.expiresAt > now() + entry.skewMs) {
    // A refused sign-out (the token expired or was revoked meanwhile) leaves nothing to undo.
    await caller.send('logout', {}, { token: entry.token });
  }
}
