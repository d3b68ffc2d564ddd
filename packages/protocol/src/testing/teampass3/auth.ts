/**
 * Sign-in and sign-out of the TeamPass 3 fake: `authorize` (login + password + API key),
 * `authorizeToken` (personal access tokens), `auth/logout`, with TeamPass 3.2.1.5's checks, its
 * uniform `Login failed. (…)` words and its lockout after repeated failures.
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import { signInLoginKey } from '../../teampass3/sign-in-lockout.ts';
import { type Answer, type Caller, json, problem, type RequestContext } from './http.ts';
import { signJwt, type TeamPass3Claims } from './jwt.ts';
import { type PhpValue, phpEmpty, phpString, phpStripTags, phpTrim, phpTrimEscape } from './php.ts';
import type { TeamPass3State } from './state.ts';
import type { TeamPass3StoredUser } from './types.ts';

/** What issuing a token needs beyond the state. */
export interface Issuer {
  /** The signing key. */
  secret: string;
  /** The instance's URL (`cpassman_url`, the `iss` claim). */
  url: string;
}

const NOT_IN_URL =
  'Credentials must be sent in request body (application/x-www-form-urlencoded or application/json), not in URL';

function loginFailed(info: string): Answer {
  return problem(401, `Login failed. (${info})`);
}

/** `POST /authorize`. */
export function authorize(ctx: RequestContext, issuer: Issuer): Answer {
  if (ctx.method !== 'POST') return problem(405, `Method ${ctx.method} not supported`, { allow: 'POST' });
  const query = ctx.queryParams();
  if (['login', 'password', 'apikey'].some((name) => query[name] !== undefined))
    return problem(400, NOT_IN_URL);
  const params = ctx.readParams();
  if (phpEmpty(params.login) || phpEmpty(params.password) || phpEmpty(params.apikey))
    return problem(
      400,
      'Missing required parameters: login, password, and apikey must be provided in request body',
    );
  if (![params.login, params.password, params.apikey].every(isScalar))
    return problem(500, 'An internal error occurred. Please contact support.');
  const state = ctx.state;
  const login = phpStripTags(phpTrimEscape(phpString(params.login)));
  // TeamPass's failures table compares logins in MariaDB's collation.
  const counted = signInLoginKey(phpString(params.login));
  const password = phpTrim(phpString(params.password));
  const apiKey = phpStripTags(phpTrimEscape(phpString(params.apikey)));
  if (login === '' || password === '' || apiKey === '') return loginFailed('Missing credentials');
  if (isLocked(state, counted, ctx.ip, ctx.now)) return loginFailed('Account temporarily locked');
  const user = state.userByLogin(login);
  if (!user?.apiEnabled || user.disabled || user.password !== password || user.apiKey !== apiKey) {
    recordFailure(state, counted, ctx.ip, ctx.now);
    return loginFailed('Invalid credentials');
  }
  return issueToken(ctx, issuer, user, login);
}

/** `POST /authorizeToken`. */
export function authorizeToken(ctx: RequestContext, issuer: Issuer): Answer {
  if (ctx.method !== 'POST') return problem(405, `Method ${ctx.method} not supported`, { allow: 'POST' });
  const query = ctx.queryParams();
  if (['login', 'token'].some((name) => query[name] !== undefined)) return problem(400, NOT_IN_URL);
  const params = ctx.readParams();
  if (phpEmpty(params.login) || phpEmpty(params.token))
    return problem(400, 'Missing required parameters: login and token must be provided in request body');
  if (![params.login, params.token].every(isScalar))
    return problem(500, 'An internal error occurred. Please contact support.');
  const state = ctx.state;
  if (!state.settings.personalAccessTokens) return loginFailed('OAuth2 API access is disabled');
  const login = phpStripTags(phpTrimEscape(phpString(params.login)));
  // TeamPass's failures table compares logins in MariaDB's collation.
  const counted = signInLoginKey(phpString(params.login));
  const token = phpTrim(phpString(params.token));
  if (login === '' || token === '') return loginFailed('Missing credentials');
  if (!/^[a-f0-9]{64}$/.test(token)) return loginFailed('Invalid credentials');
  if (isLocked(state, counted, ctx.ip, ctx.now)) return loginFailed('Account temporarily locked');
  const user = state.userByLogin(login);
  const stored = state.personalAccessTokens.get(token);
  if (
    !user?.apiEnabled ||
    user.disabled ||
    !stored ||
    stored.userId !== user.id ||
    (stored.expiresAt !== undefined && stored.expiresAt <= ctx.now)
  ) {
    recordFailure(state, counted, ctx.ip, ctx.now);
    return loginFailed('Invalid credentials');
  }
  return issueToken(ctx, issuer, user, user.login);
}

/** `POST /auth/logout`: revokes the token's own session. */
export function logout(ctx: RequestContext, caller: Caller): Answer {
  if (ctx.method !== 'POST') return problem(405, 'Method not supported', { allow: 'POST' });
  const session = ctx.state.sessions.get(caller.jti);
  if (session && session.revokedAt === undefined) session.revokedAt = ctx.now;
  return json({ error: false, message: 'Session revoked' });
}

function isScalar(value: PhpValue | undefined): boolean {
  return typeof value !== 'object' || value === null;
}

function issueToken(
  ctx: RequestContext,
  issuer: Issuer,
  user: TeamPass3StoredUser,
  username: string,
): Answer {
  const state = ctx.state;
  const settings = state.settings;
  const minutes = Math.min(Math.max(Math.trunc(settings.tokenDurationMinutes), 1), 1440);
  const issuedAt = ctx.now;
  const expiresAt = issuedAt + minutes * 60;
  const jti = randomBytes(16).toString('hex');
  const claims: TeamPass3Claims = {
    iss: issuer.url,
    aud: 'teampass-api',
    iat: issuedAt,
    nbf: issuedAt,
    jti,
    username,
    id: user.id,
    exp: expiresAt,
    pf_enabled: user.personalFolder ? 1 : 0,
    folders_list: '',
    restricted_items_list: '',
    key_tempo: randomBytes(16).toString('hex'),
    is_admin: user.admin ? 1 : 0,
    is_manager: user.manager ? 1 : 0,
    user_can_create_root_folder: user.canCreateRootFolder ? 1 : 0,
    user_can_manage_all_users: user.canManageAllUsers ? 1 : 0,
    roles: user.roleIds.join(';'),
    allowed_folders: '',
    allowed_to_create: user.api.create ? 1 : 0,
    allowed_to_read: user.api.read ? 1 : 0,
    allowed_to_update: user.api.update ? 1 : 0,
    allowed_to_delete: user.api.delete ? 1 : 0,
    email: user.email,
    api_token_duration: Math.trunc(settings.tokenDurationMinutes),
    pwd_maximum_length: settings.passwordMaximumLength,
    maintenance_mode: 0,
  };
  const token = signJwt(claims, issuer.secret);
  state.sessions.set(jti, { jti, userId: user.id, token, issuedAt, expiresAt, revokedAt: undefined });
  // Signing in rebuilds the user's folder cache (AuthModel::storeFoldersCache).
  state.folderCache.set(user.id, state.buildFolderList(user));
  state.countSignIn(user.id);
  const version = settings.version;
  const cut = version.lastIndexOf('.');
  return json({
    token,
    teampass_version: version,
    teampass_version_major: cut < 0 ? version : version.slice(0, cut),
    teampass_version_minor: cut < 0 ? '' : version.slice(cut + 1),
  });
}

/** Whether the login (as its failures are counted: `signInLoginKey`) or the address is locked. */
function isLocked(state: TeamPass3State, login: string, ip: string, now: number): boolean {
  for (const key of [`login:${login}`, `ip:${ip}`]) {
    const entry = state.failures.get(key);
    if (entry && entry.lockedUntil > now) return true;
  }
  return false;
}

/** Records a failed sign-in; at the threshold, the login (or the IP) is locked. */
function recordFailure(state: TeamPass3State, login: string, ip: string, now: number): void {
  const { failedSignInsPerLogin, failedSignInsPerIp, lockMinutes } = state.settings;
  const add = (key: string, limit: number) => {
    if (limit <= 0) return;
    const entry = state.failures.get(key) ?? { times: [], lockedUntil: 0 };
    entry.times = entry.times.filter((time) => time > now - 86_400);
    entry.times.push(now);
    if (entry.times.length >= limit) entry.lockedUntil = now + Math.max(1, lockMinutes) * 60;
    state.failures.set(key, entry);
  };
  if (login !== '') add(`login:${login}`, failedSignInsPerLogin);
  if (ip !== '' && ip !== '0.0.0.0') add(`ip:${ip}`, failedSignInsPerIp);
}
