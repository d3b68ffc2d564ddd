/**
 * The front controller of the TeamPass 3 fake, in the order of TeamPass 3.2.1.5's
 * `app/api/index.php`: CORS preflight, `api_require_https`, the keyless OpenAPI document, sign-in
 * (behind the global API switch), then for everything else the bearer token, the user re-read
 * from the database (disabled, API access, CRUD flags), the rate limit, the token's revocation and
 * expiry, the folder list, and the route (the CRUD-flag check runs before `item/` and `folder/`
 * actions are looked up).
 *
 * @module
 */

import { teamPass3MinuteEstimate } from '../../teampass3/rate-limit.ts';
import { authorize, authorizeToken, type Issuer, logout } from './auth.ts';
import { FOLDER_ACTIONS } from './folders.ts';
import {
  type Answer,
  type Caller,
  json,
  methodNotSupported,
  problem,
  type RequestContext,
  UncaughtPhpError,
} from './http.ts';
import { ITEM_ACTIONS } from './items.ts';
import { verifyJwt } from './jwt.ts';
import { phpTrimEscape } from './php.ts';
import type { TeamPass3State } from './state.ts';
import type { TeamPass3ApiFlags } from './types.ts';

/**
 * The route segments of a request path, as `BaseController::getUriSegments` finds them: after
 * `/api/index.php` (or `/api` for clean URLs), empty and `"0"` segments dropped (PHP
 * `array_filter`), a leading `v1` stripped, each trimmed and escaped. `undefined` for a path
 * outside the API.
 *
 * @param path The path, not percent-decoded.
 * @returns The segments.
 */
export function routeSegments(path: string): string[] | undefined {
  let rest: string;
  if (path === '/api/index.php' || path.startsWith('/api/index.php/'))
    rest = path.slice('/api/index.php'.length);
  else if (path === '/api' || path.startsWith('/api/')) rest = path.slice('/api'.length);
  else return undefined;
  const parts = rest.split('/').filter((part) => part !== '' && part !== '0');
  if (parts[0] === 'v1') parts.shift();
  return parts.map(phpTrimEscape);
}

/** What the front controller needs besides the request. */
export interface RouterContext extends Issuer {
  /** The keyless OpenAPI document. */
  openApi: unknown;
  /** The browser-extension key `misc/refreshExtensionSettings` hands out. */
  extensionKey: string;
}

/** Which CRUD flag an action needs (`checkUSerCRUDRights`); unknown actions need one nobody has. */
function flagFor(action: string): keyof TeamPass3ApiFlags | undefined {
  if (action === 'create') return 'create';
  if (
    ['read', 'get', 'inFolders', 'findByUrl', 'getOtp', 'allTags', 'listFolders', 'writableFolders'].includes(
      action,
    )
  )
    return 'read';
  if (action === 'update') return 'update';
  if (action === 'delete') return 'delete';
  return undefined;
}

const ACCESS_DENIED = 'Access denied: insufficient permissions for this action';

/**
 * Answers one request.
 *
 * @param ctx The request.
 * @param router The instance's keys and documents.
 * @param secure Whether the request counts as HTTPS (`X-Forwarded-Proto: https`).
 * @returns The answer, and the caller when a valid token came with it.
 */
export function route(
  ctx: RequestContext,
  router: RouterContext,
  secure: boolean,
): { answer: Answer; caller: Caller | undefined } {
  const state = ctx.state;
  if (ctx.method === 'OPTIONS') return { answer: { status: 200, headers: {}, body: '' }, caller: undefined };
  if (state.settings.requireHttps && !secure)
    return {
      answer: problem(403, 'HTTPS is required for API requests (api_require_https is enabled)'),
      caller: undefined,
    };
  const [controller = '', action = ''] = ctx.segments;
  if (controller === 'openapi.json') {
    if (!state.settings.api) return { answer: problem(503, 'API usage is not allowed'), caller: undefined };
    return {
      answer: { ...json(router.openApi), headers: { 'content-type': 'application/json; charset=UTF-8' } },
      caller: undefined,
    };
  }
  if (controller === 'authorize' || controller === 'authorizeToken') {
    if (!state.settings.api) return { answer: problem(503, 'API usage is not allowed'), caller: undefined };
    return {
      answer: controller === 'authorize' ? authorize(ctx, router) : authorizeToken(ctx, router),
      caller: undefined,
    };
  }

  const header = ctx.headers.authorization;
  const bearer = typeof header === 'string' ? /Bearer\s(\S+)/.exec(header.trim())?.[1] : undefined;
  if (!bearer) return { answer: problem(401, 'Missing Authorization header'), caller: undefined };
  const claims = verifyJwt(bearer, { secret: router.secret, now: ctx.now, issuer: router.url });
  if (!claims) return { answer: problem(401, 'Invalid or expired token'), caller: undefined };
  const userId = typeof claims.id === 'number' ? claims.id : Number(claims.id);
  const user = state.users.get(userId);
  if (!user || user.disabled || !user.apiEnabled)
    return { answer: problem(401, 'Invalid or expired token'), caller: undefined };

  const limit = state.settings.rateLimitPerMinute;
  if (limit > 0) {
    const retryAfter = rateLimitCheck(state, user.id, ctx.ip, limit, ctx.now);
    if (retryAfter !== undefined)
      return {
        answer: problem(429, `Rate limit exceeded \u2014 retry in ${retryAfter} seconds`, {
          'retry-after': String(retryAfter),
        }),
        caller: undefined,
      };
  }

  const jti = typeof claims.jti === 'string' ? claims.jti : '';
  const session = state.sessions.get(jti);
  if (
    session &&
    (session.userId !== user.id || session.revokedAt !== undefined || session.expiresAt < ctx.now)
  )
    return { answer: problem(401, 'Invalid or expired token'), caller: undefined };

  const caller: Caller = {
    user,
    username: typeof claims.username === 'string' ? claims.username : user.login,
    jti,
    folders: state.foldersOf(user),
  };
  return { answer: dispatch(ctx, caller, router, controller, action), caller };
}

function dispatch(
  ctx: RequestContext,
  caller: Caller,
  router: RouterContext,
  controller: string,
  action: string,
): Answer {
  if (controller === '' || action === '') return problem(404, 'Unknown route');
  if (controller === 'item' || controller === 'folder') {
    const flag = flagFor(action);
    if (flag === undefined || !caller.user.api[flag]) return problem(403, ACCESS_DENIED);
    const handler = (controller === 'item' ? ITEM_ACTIONS : FOLDER_ACTIONS)[action];
    return handler ? handler(ctx, caller) : problem(404, 'Unknown route');
  }
  if (controller === 'user') {
    if (action !== 'list') return problem(404, 'Unknown route');
    ctx.readParams();
    if (ctx.method !== 'GET') return methodNotSupported('GET');
    if (!caller.user.admin) return problem(403, 'Access denied: administrator rights required');
    // TeamPass 3.2.1.5's UserModel reads a column the installer never creates: an uncaught SQL error.
    throw new UncaughtPhpError("Unknown column 'last_connection_time' in 'field list'");
  }
  if (controller === 'misc') {
    if (action !== 'refreshExtensionSettings') return problem(404, 'Unknown route');
    if (ctx.method !== 'GET' && ctx.method !== 'POST')
      return problem(405, 'Method not supported', { allow: 'GET, POST' });
    const version = ctx.state.settings.version;
    const cut = version.lastIndexOf('.');
    return json({
      extension_fqdn: '',
      extension_key: router.extensionKey,
      extension_url: `${router.url}/`,
      teampass_version: version,
      teampass_version_major: cut < 0 ? version : version.slice(0, cut),
      teampass_version_minor: cut < 0 ? '' : version.slice(cut + 1),
    });
  }
  if (controller === 'auth' && action === 'logout') return logout(ctx, caller);
  return problem(404, 'Unknown route');
}

/**
 * TeamPass's rate limit, per user and per client IP, over its estimated minute
 * ({@link teamPass3MinuteEstimate}). Every request counts, refused ones too.
 *
 * @returns The seconds to wait, or `undefined` when the request may pass.
 */
function rateLimitCheck(
  state: TeamPass3State,
  userId: number,
  ip: string,
  limit: number,
  now: number,
): number | undefined {
  const windowStart = now - (now % 60);
  const elapsed = now - windowStart;
  let allowed = true;
  for (const scope of [`u:${userId}`, ...(ip === '' ? [] : [`ip:${ip}`])]) {
    const buckets = state.rateBuckets.get(scope) ?? new Map<number, number>();
    state.rateBuckets.set(scope, buckets);
    buckets.set(windowStart, (buckets.get(windowStart) ?? 0) + 1);
    for (const start of buckets.keys()) if (start < windowStart - 180) buckets.delete(start);
    const current = buckets.get(windowStart) ?? 0;
    const previous = buckets.get(windowStart - 60) ?? 0;
    if (teamPass3MinuteEstimate(previous, current, elapsed * 1_000) > limit) allowed = false;
  }
  return allowed ? undefined : 60 - elapsed;
}
