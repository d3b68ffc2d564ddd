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
 * @module
 */

import type { Limiter } from '@vaultline/rate-limit';
import { AUDIT_AUTH_FAILED } from '../constants.ts';
import { RateLimitedError, VaultServerError } from '../errors.ts';
import type { Principal } from '../store/access.ts';
import { keyActor } from '../store/actor.ts';
import { authenticateKey, hashKey, type KeyIdentity } from '../store/api-keys.ts';
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

/** Who a request's key belongs to. */
export type KeyCheck = (request: ApiRequest, address: string) => Promise<Principal>;

/**
 * The key check: authenticates a request's key from the client's address.
 *
 * @param options The store, the audit, the failed-key counter and the query-key policy.
 * @returns The check, which answers the key's principal.
 * @throws {VaultServerError} 401 for a missing or unknown key, 403 for an address the key does not
 *   allow, 429 ({@link RateLimitedError}) once the address has sent too many unknown keys.
 */
export function createKeyCheck(options: KeyCheckOptions): KeyCheck {
  const { ctx, audit, failedKeys, queryKeys } = options;
  return async (request, address) => {
    const key = keyOf(request.header('authorization'), request.target, queryKeys);
    const hash = hashKey(key);
    let identity: KeyIdentity | undefined = ctx.keyCache.get(hash);
    if (!identity) {
      identity = await authenticateKey(ctx.db, key);
      if (identity) ctx.keyCache.set(hash, identity);
    }
    if (!identity) {
      const { allowed, retryAfterSeconds } = await failedKeys.hit(address);
      if (!allowed) {
        throw new RateLimitedError(
          'Too many failed API keys from this address; try again later.',
          retryAfterSeconds,
        );
      }
      await audit.recordNow({
        actor: 'unknown',
        keyLabel: '',
        action: AUDIT_AUTH_FAILED,
        target: '',
        address,
        outcome: 'unauthorized',
      });
      throw new VaultServerError('unauthorized', 'Invalid API key.');
    }
    if (!identity.allows(address)) {
      const actor = keyActor(identity.principal, address);
      await audit.recordNow({
        actor: actor.name,
        keyLabel: actor.keyLabel,
        action: AUDIT_AUTH_FAILED,
        target: '',
        address,
        outcome: 'address not allowed',
      });
      throw new VaultServerError('forbidden', 'Ip address not allowed for this API key.');
    }
    return identity.principal;
  };
}
