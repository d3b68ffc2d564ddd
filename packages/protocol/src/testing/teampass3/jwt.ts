/**
 * HS256 JSON Web Tokens as TeamPass 3 issues and checks them (firebase/php-jwt): a signature over
 * `header.payload`, `alg` must be `HS256` (`none` is refused), `nbf` and `iat` with 60 s of
 * leeway, `exp` without any, `aud` must be `teampass-api` and `iss` the instance's URL when set.
 *
 * @module
 */

import { createHmac, timingSafeEqual } from 'node:crypto';

/** The claims TeamPass puts in an API token. */
export interface TeamPass3Claims {
  iss: string;
  aud: string;
  iat: number;
  nbf: number;
  jti: string;
  username: string;
  id: number;
  exp: number;
  pf_enabled: number;
  folders_list: string;
  restricted_items_list: string;
  key_tempo: string;
  is_admin: number;
  is_manager: number;
  user_can_create_root_folder: number;
  user_can_manage_all_users: number;
  roles: string;
  allowed_folders: string;
  allowed_to_create: number;
  allowed_to_read: number;
  allowed_to_update: number;
  allowed_to_delete: number;
  email: string;
  api_token_duration: number;
  pwd_maximum_length: number;
  maintenance_mode: number;
}

function base64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

/**
 * Signs claims into a token.
 *
 * @param claims The payload.
 * @param secret The signing key.
 * @returns The token.
 */
export function signJwt(claims: TeamPass3Claims, secret: string): string {
  const head = base64url(JSON.stringify({ typ: 'JWT', alg: 'HS256' }));
  const body = base64url(JSON.stringify(claims));
  const signature = createHmac('sha256', secret).update(`${head}.${body}`).digest();
  return `${head}.${body}.${base64url(signature)}`;
}

/** What {@link verifyJwt} checks the claims against. */
export interface JwtCheck {
  /** The signing key. */
  secret: string;
  /** The current time, in seconds. */
  now: number;
  /** The instance's URL (`cpassman_url`), the expected issuer. */
  issuer: string;
}

function decodeJson(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value))
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Verifies a token and returns its claims, or `undefined` for any token TeamPass would refuse.
 *
 * @param token The token.
 * @param check The key, the clock and the issuer.
 * @returns The claims.
 */
export function verifyJwt(token: string, check: JwtCheck): Record<string, unknown> | undefined {
  const [head, body, signature, extra] = token.split('.');
  if (head === undefined || body === undefined || signature === undefined || extra !== undefined)
    return undefined;
  const header = decodeJson(head);
  if (header?.alg !== 'HS256') return undefined;
  const expected = createHmac('sha256', check.secret).update(`${head}.${body}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const claims = decodeJson(body);
  if (!claims) return undefined;
  const leeway = 60;
  if (typeof claims.nbf === 'number' && Math.floor(claims.nbf) > check.now + leeway) return undefined;
  if (typeof claims.iat === 'number' && Math.floor(claims.iat) > check.now + leeway) return undefined;
  if (typeof claims.exp !== 'number' || claims.exp - check.now < 0) return undefined;
  if (claims.aud !== undefined && claims.aud !== 'teampass-api') return undefined;
  if (typeof claims.iss === 'string' && claims.iss !== '' && claims.iss.replace(/\/+$/, '') !== check.issuer)
    return undefined;
  return claims;
}
