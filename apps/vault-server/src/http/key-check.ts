/**
 * The API key check: where the key travels (`Authorization: Bearer`, or `?apikey=` unless the
 * server refuses keys in URLs), who it belongs to, and the failed-key lockout.
 *
 * The lockout locks out failing attempts, never a valid key: once an address has sent too many
 * unknown keys, further unknown keys from it get 429 without an audit record each, while a key
 * that authenticates keeps working (many people share an address behind a NAT or a proxy, and one
 * of them must not lock the others out). Keys are 256 random bits: the lockout throttles guessing
 * and spares the database and the audit table, it is not what makes keys unguessable.
 *
 * A revoked key is answered `API key revoked.` (401, reason `key_revoked`) rather than `Invalid API
 * key.`, so that its holder learns to ask for a new key instead of retyping it. That tells only
 * what the holder of the exact key can already know (this key existed and was revoked): it takes
 * the whole 256-bit key to hear it, and neither its label nor its owner is said. It is a failed
 * key like an unknown one: it counts toward the lockout, and once the address is locked out it
 * gets the same 429 as any wrong key, before anything about the key is said. Both take the same
 * path (one indexed lookup by hash, one audit record), so the time does not tell them apart either.
 *
 * @module
 */

import type { Limiter } from '@vaultline/rate-limit';
import { AUDIT_AUTH_FAILED } from '../constants.ts';
import { AddressNotAllowedError, RateLimitedError, VaultServerError } from '../errors.ts';
import type { Principal } from '../store/access.ts';
import { keyActor } from '../store/actor.ts';
import { authenticateKey, hashKey, type KeyIdentity, type KeyLookup } from '../store/api-keys.ts';
import type { AuditWriter } from '../store/audit-writer.ts';
import type { StoreContext } from '../store/store-context.ts';
import type { ApiRequest } from './api-call.ts';

/** Whether `?apikey=` is accepted (`accept`, TeamPass clients) or refused (`refuse`). */
export type QueryKeyPolicy = 'accept' | 'refuse';

/** What the key check needs. */
export interface KeyCheckOptions {
  readonly ctx: StoreContext;
  readonly audit: AuditWriter;
  readonly failedKeys: Limiter;
  readonly queryKeys: QueryKeyPolicy;
}

const BEARER = /^Bearer +([^\s]+) *$/i;

/**
 * Reads the key from the request.
 *
 * @param authorization The `Authorization` header.
 * @param target The raw request target (for `?apikey=`).
 * @param queryKeys Whether keys in the URL are accepted.
 * @returns The key.
 * @throws {VaultServerError} `unauthorized` when no key is sent, or a refused or malformed one.
 */
export function keyOf(authorization: string | undefined, target: string, queryKeys: QueryKeyPolicy): string {
  const queryStart = target.indexOf('?');
  const fromQuery =
    queryStart === -1 ? null : new URLSearchParams(target.slice(queryStart + 1)).get('apikey');
  if (fromQuery !== null && queryKeys === 'refuse') {
    throw new VaultServerError(
      'unauthorized',
      'This server refuses API keys in the URL (VAULTLINE_QUERY_KEYS=refuse): send the key as "Authorization: Bearer <key>" and revoke the key that was sent, since URLs end up in logs.',
    );
  }
  if (authorization !== undefined) {
    const key = BEARER.exec(authorization)?.[1];
    if (key === undefined)
      throw new VaultServerError('unauthorized', 'Expected the header "Authorization: Bearer <key>".');
    return key;
  }
  if (fromQuery === null || fromQuery === '') {
    throw new VaultServerError(
      'unauthorized',
      queryKeys === 'accept'
        ? 'Missing API key: send it as "Authorization: Bearer <key>" or as the apikey query parameter.'
        : 'Missing API key: send it as "Authorization: Bearer <key>".',
    );
  }
  return fromQuery;
}

/** Who a request's key belongs to, and how the API answers it. */
export type KeyCheck = (request: ApiRequest, address: string) => Promise<KeyIdentity>;

/**
 * The key check: authenticates a request's key from the client's address.
 *
 * @param options The store, the audit, the failed-key counter and the query-key policy.
 * @returns The check, which answers the key's identity (its principal and answer profile).
 * @throws {VaultServerError} 401 for a missing, unknown or revoked key (reason `key_revoked`), 403
 *   ({@link AddressNotAllowedError}, which carries the key's profile) for an address the key does
 *   not allow, 429 ({@link RateLimitedError}) once the address has
 *   sent too many unknown or revoked keys.
 */
export function createKeyCheck(options: KeyCheckOptions): KeyCheck {
  const { ctx, audit, failedKeys, queryKeys } = options;
  /** Audits a refused key: in the name of whom it belongs to, or of `unknown`. */
  const recordRefusal = (principal: Principal | undefined, address: string, outcome: string) => {
    const actor = principal ? keyActor(principal, address) : { name: 'unknown', keyLabel: '' };
    return audit.recordNow({
      actor: actor.name,
      keyLabel: actor.keyLabel,
      action: AUDIT_AUTH_FAILED,
      target: '',
      address,
      outcome,
      identity: principal?.workload,
    });
  };
  /** Refuses a key that is not valid: counted, audited, answered. */
  const refuse = async (found: Exclude<KeyLookup, { kind: 'valid' }>, address: string): Promise<never> => {
    const { allowed, retryAfterSeconds } = await failedKeys.hit(address);
    if (!allowed) {
      throw new RateLimitedError(
        'Too many failed API keys from this address; try again later.',
        retryAfterSeconds,
      );
    }
    if (found.kind === 'expired') {
      await recordRefusal(found.principal, address, 'key expired');
      throw new VaultServerError('unauthorized', 'API key expired.');
    }
    if (found.kind === 'revoked') {
      // The audit names the revoked key, so that an administrator sees who still uses it.
      await recordRefusal(found.principal, address, 'key revoked');
      throw new VaultServerError('unauthorized', 'API key revoked.', undefined, 'key_revoked');
    }
    await recordRefusal(undefined, address, 'unauthorized');
    throw new VaultServerError('unauthorized', 'Invalid API key.');
  };
  return async (request, address) => {
    const key = keyOf(request.header('authorization'), request.target, queryKeys);
    const hash = hashKey(key);
    let identity: KeyIdentity | undefined = ctx.keyCache.get(hash);
    if (!identity) {
      // A change announced while the key is read (another instance revoked it) makes what was read
      // stale: it may answer this request, which started before the change, but is not cached.
      const started = ctx.accessGeneration();
      const found = await authenticateKey(ctx.db, key);
      if (found.kind !== 'valid') return refuse(found, address);
      identity = found.identity;
      if (ctx.accessGeneration() === started) ctx.keyCache.set(hash, identity);
    }
    if (identity.expiresAt !== undefined && identity.expiresAt <= Date.now()) {
      ctx.keyCache.delete(hash);
      return refuse({ kind: 'expired', principal: identity.principal }, address);
    }
    if (!identity.allows(address)) {
      await recordRefusal(identity.principal, address, 'address not allowed');
      throw new AddressNotAllowedError(identity.profile);
    }
    return identity;
  };
}
