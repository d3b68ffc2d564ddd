/**
 * The token a TeamPass 3 session holds: read once from the cache, kept until shortly before its
 * `exp` (the server's clock allowed for), refreshed by one sign-in shared between concurrent
 * calls, forgotten when refused, signed out on release.
 *
 * @see ../README.md
 * @module
 */

import * as v from 'valibot';
import { VaultError } from '../../errors.ts';
import { untilAborted } from '../../internal/abort.ts';
import { base64ToBytes } from '../../internal/base64.ts';
import type { TeamPass3Caller } from '../caller.ts';
import { decodeTeamPassEntities } from '../html.ts';
import { type TeamPass3Claims, TeamPass3ClaimsSchema } from '../schemas.ts';
import { signIn } from './sign-in.ts';
import { signOut } from './sign-out.ts';
import type { HeldToken, TeamPass3Credentials, TeamPass3TokenCache } from './types.ts';

/** What the keeper needs. */
export interface TokenKeeperOptions {
  readonly caller: TeamPass3Caller;
  readonly credentials: TeamPass3Credentials;
  readonly tokenCache: TeamPass3TokenCache | undefined;
  readonly now: () => number;
  /** Sign in again when fewer than this many ms remain (at most a quarter of the lifetime). */
  readonly marginMs: number;
  /** Adds a token to what is redacted. */
  readonly remember: (token: string) => void;
}

/** The session's token. */
export interface TokenKeeper {
  /** Sign-ins made. */
  readonly signIns: number;
  /** A usable token: the one held, the cache's, or a new sign-in. */
  current(signal: AbortSignal | undefined): Promise<HeldToken>;
  /** Forgets a token the server refused (and the cache's copy). */
  forget(token: string): Promise<void>;
  /** Ends: signs the token out and clears the cache, or with `signOut: false` only forgets it here. */
  release(signOutToo: boolean): Promise<void>;
}

/** The claims of a JWT, or `undefined` when they cannot be read. */
function claimsOf(token: string): TeamPass3Claims | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const bytes = base64ToBytes(payload);
    if (!bytes) return undefined;
    const json: unknown = JSON.parse(new TextDecoder().decode(bytes));
    const result = v.safeParse(TeamPass3ClaimsSchema, json);
    return result.success ? result.output : undefined;
  } catch {
    return undefined;
  }
}

function sameLogin(claimed: string, login: string): boolean {
  return decodeTeamPassEntities(claimed).trim().toLowerCase() === login.trim().toLowerCase();
}

/**
 * Creates the keeper of a session's token. Nothing is sent until a token is asked for.
 *
 * @param options The transport, credentials, cache, clock and margin.
 * @returns The keeper.
 */
export function createTokenKeeper(options: TokenKeeperOptions): TokenKeeper {
  const { caller, credentials, tokenCache, now, marginMs } = options;
  let held: HeldToken | undefined;
  let pending: Promise<HeldToken> | undefined;
  let cacheRead = false;
  let signIns = 0;
  let disposed = false;

  function usable(entry: HeldToken | undefined): entry is HeldToken {
    if (!entry) return false;
    const { expiresAt, issuedAt } = entry.claims;
    const lifetime = issuedAt === undefined ? Number.POSITIVE_INFINITY : expiresAt - issuedAt;
    const margin = Math.min(marginMs, lifetime / 4);
    return expiresAt - margin > now() + entry.skewMs;
  }

  function hold(token: string, fresh: boolean): HeldToken | undefined {
    const claims = claimsOf(token);
    if (!claims) return undefined;
    options.remember(token);
    const skewMs = fresh && claims.issuedAt !== undefined ? claims.issuedAt - now() : 0;
    // Only a skew beyond a clock tick matters; a fresh token's iat is "now" on the server.
    return { token, claims, skewMs: Math.abs(skewMs) < 2000 ? 0 : skewMs };
  }

  /** Signs in. Not tied to one caller's signal: concurrent calls share it. */
  async function refresh(): Promise<HeldToken> {
    const { token, status } = await signIn(caller, credentials);
    signIns++;
    const entry = hold(token, true);
    if (!entry) {
      throw new VaultError('invalid_response', 'authorize answered a token whose claims cannot be read.', {
        endpoint: 'authorize',
        status,
      });
    }
    await tokenCache?.set(entry.token);
    return entry;
  }

  async function acquire(): Promise<HeldToken> {
    if (!cacheRead && tokenCache) {
      cacheRead = true;
      const cached = await tokenCache.get();
      const entry = cached ? hold(cached, false) : undefined;
      // A token of another login (a cache shared by mistake) is never used.
      if (usable(entry) && sameLogin(entry.claims.login, credentials.login)) return entry;
    }
    return refresh();
  }

  return {
    get signIns() {
      return signIns;
    },
    async current(signal) {
      if (disposed) throw new VaultError('aborted', 'The TeamPass session was disposed.');
      if (usable(held)) return held;
      if (!pending) {
        pending = acquire()
          .then((entry) => {
            held = entry;
            return entry;
          })
          .finally(() => {
            pending = undefined;
          });
      }
      return untilAborted(pending, signal);
    },
    async forget(token) {
      if (held?.token !== token) return;
      held = undefined;
      await tokenCache?.set(undefined);
    },
    async release(signOutToo) {
      if (disposed) return;
      disposed = true;
      let entry = held;
      if (pending) entry = await pending.catch(() => undefined);
      held = undefined;
      if (!signOutToo) return;
      if (!entry && tokenCache && !cacheRead) {
        const cached = await tokenCache.get();
        entry = cached ? hold(cached, false) : undefined;
      }
      await signOut(caller, entry, now);
      await tokenCache?.set(undefined);
    },
  };
}
