/**
 * `POST /api/auth/oidc`: a workload's identity token for a short-lived key. The token comes in the
 * body (never the URL), is verified against the trust policy it names or the policies of its
 * issuer (see `oidc/verify-token.ts`), and the key is made by the same path as `keys create`'s,
 * bound and scoped by the policy, expiring at the policy's TTL or the token's `exp`, whichever
 * comes first. A token whose key was revoked is refused: revoking a key is not undone by exchanging
 * the same token again. Every exchange is audited (`auth/oidc`) with the workload's identity;
 * a refusal counts toward the address's failed-key lockout.
 *
 * @module
 */

import { hash, randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { OidcExchangeRequestSchema } from '@vaultline/protocol/wire';
import type { Limiter } from '@vaultline/rate-limit';
import { decodeJwt, type JWTPayload } from 'jose';
import * as v from 'valibot';
import { invalid, RateLimitedError, VaultServerError, WrongMethodError } from '../errors.ts';
import { type IssuerKeys, IssuerUnavailableError } from '../oidc/issuer-keys.ts';
import { TokenRefusedError, verifyToken } from '../oidc/verify-token.ts';
import { workloadIdentityOf } from '../oidc/workload-identity.ts';
import type { Actor } from '../store/actor.ts';
import { createKey } from '../store/api-keys.ts';
import type { AuditWriter } from '../store/audit-writer.ts';
import type { StoreContext } from '../store/store-context.ts';
import { type TrustPolicy, trustPoliciesFor } from '../store/trust-policies.ts';
import type { ApiAnswer, ApiRequest } from './api-call.ts';
import { answerOf } from './api-response.ts';

/** The audit action of an exchange. */
export const AUDIT_OIDC_EXCHANGE = 'auth/oidc';

/** The largest request body read: a token of 16 KiB and its JSON. */
const MAX_BODY_BYTES = 20 * 1024;

/** What the exchange needs. */
export interface OidcExchangeOptions {
  readonly ctx: StoreContext;
  readonly audit: AuditWriter;
  readonly failedKeys: Limiter;
  readonly issuerKeys: IssuerKeys;
}

async function readBody(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      body.destroy();
      throw new VaultServerError('too_large', `Expected a body of at most ${MAX_BODY_BYTES} bytes.`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The exchange.
 *
 * @param options The store, the audit, the lockout and the issuers' keys.
 * @returns A function from a request and its client's address to the answer.
 */
export function createOidcExchange(
  options: OidcExchangeOptions,
): (request: ApiRequest, address: string) => Promise<ApiAnswer> {
  const { ctx, audit, failedKeys, issuerKeys } = options;

  const refuse = async (address: string, target: string, message: string): Promise<never> => {
    const { allowed, retryAfterSeconds } = await failedKeys.hit(address);
    if (!allowed)
      throw new RateLimitedError(
        'Too many refused tokens from this address; try again later.',
        retryAfterSeconds,
      );
    await audit.recordNow({
      actor: 'unknown',
      keyLabel: '',
      action: AUDIT_OIDC_EXCHANGE,
      target,
      address,
      outcome: `refused: ${message}`,
    });
    throw new VaultServerError('unauthorized', message);
  };

  return async (request, address) => {
    if (request.method !== 'POST')
      throw new WrongMethodError('invalid_request', `auth/oidc takes POST, received ${request.method}.`);
    if (!/^application\/json\b/i.test(request.header('content-type') ?? ''))
      throw invalid('Expected a JSON body (Content-Type: application/json): {"token": "<identity token>"}.');
    let data: unknown;
    try {
      data = JSON.parse(await readBody(request.body()));
    } catch (error) {
      if (error instanceof VaultServerError) throw error;
      throw invalid('Expected a JSON body: {"token": "<identity token>", "policy": "<name>"}.');
    }
    const parsed = v.safeParse(OidcExchangeRequestSchema, data);
    if (!parsed.success)
      throw invalid(
        'Expected {"token": "<identity token>"} with an optional "policy" name, and nothing else.',
      );
    const { token, policy: named } = parsed.output;
    let claimed: JWTPayload;
    try {
      claimed = decodeJwt(token);
    } catch {
      return refuse(address, '', 'The token is not a well-formed signed JWT.');
    }
    if (typeof claimed.iss !== 'string') return refuse(address, '', 'The token names no issuer (iss).');
    const policies = await trustPoliciesFor(ctx.db, named, claimed.iss);
    if (policies.length === 0)
      return refuse(
        address,
        named === undefined ? '' : `trust policy ${named}`,
        named === undefined
          ? "No trust policy trusts the token's issuer."
          : `No trust policy named ${JSON.stringify(named)}.`,
      );
    let chosen: { policy: TrustPolicy; payload: JWTPayload } | undefined;
    let refusal = '';
    for (const policy of policies) {
      try {
        chosen = { policy, payload: await verifyToken(token, policy, issuerKeys) };
        break;
      } catch (error) {
        if (error instanceof IssuerUnavailableError)
          throw new VaultServerError('server', `${error.message} Try again later.`, 502);
        if (!(error instanceof TokenRefusedError)) throw error;
        refusal = error.message;
      }
    }
    const target = `trust policy ${chosen?.policy.name ?? (policies.length === 1 ? policies[0]!.name : '')}`;
    if (chosen === undefined)
      return refuse(
        address,
        target,
        policies.length === 1 ? refusal : 'No trust policy of the issuer takes this token.',
      );
    const { policy, payload } = chosen;
    // A policy always binds a user or an account; a key bound to neither would be an admin key.
    if (policy.login === undefined && policy.upstream === undefined)
      throw new VaultServerError('server', `The trust policy ${policy.name} binds no user or account.`);
    const tokenHash = hash('sha256', token, 'hex');
    const revoked = await ctx.db.query(
      'SELECT 1 FROM api_keys WHERE token_hash = $1 AND revoked_at IS NOT NULL LIMIT 1',
      [tokenHash],
    );
    if (revoked.length > 0)
      return refuse(
        address,
        target,
        'A key issued for this token was revoked: the token is not exchanged again.',
      );
    const expiresAt = Math.min(Date.now() + policy.ttlSeconds * 1000, (payload.exp ?? 0) * 1000);
    if (expiresAt <= Date.now()) return refuse(address, target, 'The token has expired.');
    const identity = workloadIdentityOf(policy.name, payload);
    const label = `oidc/${policy.name}/${randomBytes(9).toString('base64url')}`;
    const actor: Actor = {
      principal: { kind: 'admin', keyLabel: '' },
      name: `oidc:${policy.name}`,
      keyLabel: label,
      address,
      identity,
    };
    // Keys of this policy expired a day ago and more: nothing refers to them any longer.
    await ctx.db.query(
      `DELETE FROM api_keys WHERE trust_policy_id = $1 AND revoked_at IS NULL AND expires_at < now() - interval '1 day'`,
      [policy.id],
    );
    const key = await createKey(ctx.db, actor, {
      label,
      login: policy.login,
      upstream: policy.upstream,
      expiresAt: new Date(expiresAt),
      issuedBy: { policyId: policy.id, identity, tokenHash },
    });
    await audit.recordNow({
      actor: actor.name,
      keyLabel: label,
      action: AUDIT_OIDC_EXCHANGE,
      target,
      address,
      outcome: 'ok',
      identity,
    });
    return answerOf({
      key,
      label,
      expires_at: new Date(expiresAt).toISOString(),
      policy: policy.name,
      ...(policy.login === undefined ? {} : { login: policy.login }),
    });
  };
}
