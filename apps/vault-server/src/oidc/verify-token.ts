/**
 * Verifies an identity token against a trust policy with jose: the signature by the issuer's keys
 * with an asymmetric algorithm only (never `none`, never an HMAC, whose secret an attacker could
 * take from the issuer's public key), `iss`, `aud`, `exp`, `nbf` and `iat` with a small clock skew,
 * the policy's maximum token age, and every claim the policy names. A refusal says which check
 * failed, never a claim's value nor the token.
 *
 * @module
 */

import { errors, type JWTPayload, jwtVerify } from 'jose';
import { claimMatches } from './claim-pattern.ts';
import type { IssuerKeys } from './issuer-keys.ts';

/** The algorithms a token may be signed with: asymmetric ones only. */
export const TOKEN_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** The clock skew allowed on `exp`, `nbf` and `iat`, in seconds. */
export const CLOCK_SKEW_SECONDS = 30;

/** What a token is checked against. */
export interface TokenPolicy {
  readonly issuer: string;
  readonly audience: string;
  readonly claims: Readonly<Record<string, string>>;
  readonly jwksUrl: string | undefined;
  readonly maxTokenAgeSeconds: number;
}

/** A token refused: its message says which check failed, and is safe to answer and log. */
export class TokenRefusedError extends Error {
  override name = 'TokenRefusedError';
}

/**
 * Verifies a token.
 *
 * @param token The token.
 * @param policy What it must satisfy.
 * @param keys The issuers' keys.
 * @returns Its claims.
 * @throws {TokenRefusedError} For a token that fails a check.
 * @throws {IssuerUnavailableError} When the issuer's keys cannot be had.
 */
export async function verifyToken(token: string, policy: TokenPolicy, keys: IssuerKeys): Promise<JWTPayload> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keys.lookup(policy.issuer, policy.jwksUrl), {
      issuer: policy.issuer,
      audience: policy.audience,
      algorithms: TOKEN_ALGORITHMS,
      clockTolerance: CLOCK_SKEW_SECONDS,
      maxTokenAge: policy.maxTokenAgeSeconds,
      requiredClaims: ['exp', 'iat'],
    }));
  } catch (error) {
    throw refusalOf(error);
  }
  for (const [name, pattern] of Object.entries(policy.claims)) {
    if (!claimMatches(pattern, payload[name]))
      throw new TokenRefusedError(`The token's claim ${name} does not match the policy.`);
  }
  return payload;
}

/** jose's failure in words that name the check, never a value. */
function refusalOf(error: unknown): unknown {
  // jose reports a token older than maxTokenAge as expired, on its iat.
  if (error instanceof errors.JWTExpired && error.claim !== 'iat')
    return new TokenRefusedError('The token has expired.');
  if (error instanceof errors.JWTClaimValidationFailed || error instanceof errors.JWTExpired) {
    const words: Record<string, string> = {
      iss: "The token's issuer is not the policy's.",
      aud: "The token's audience is not the policy's.",
      nbf: 'The token is not valid yet (nbf).',
      iat:
        error.reason === 'check_failed'
          ? 'The token is older than the policy allows (iat).'
          : 'The token was issued in the future (iat).',
      exp: 'The token has no expiry (exp).',
    };
    return new TokenRefusedError(words[error.claim] ?? `The token's claim ${error.claim} is not valid.`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported)
    return new TokenRefusedError(
      `The token is signed with an algorithm that is not accepted: only ${TOKEN_ALGORITHMS.join(', ')}.`,
    );
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
    return new TokenRefusedError("No key of the issuer's key set matches the token's key id (kid).");
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return new TokenRefusedError("The token's signature does not verify.");
  if (error instanceof errors.JOSEError)
    return new TokenRefusedError('The token is not a well-formed signed JWT.');
  return error;
}
