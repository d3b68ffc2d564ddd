/**
 * A local HTTP server on 127.0.0.1 that answers like TeamPass 3.2.1.5's REST API, and the typed
 * control API tests drive it with: seed it from a plain description, change what TeamPass's admin
 * pages change (API flags, disabled users, roles, the API and HTTPS switches, personal access
 * tokens, the rate limit, the token lifetime), move its clock, count sign-ins and read its state
 * back. Node only.
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Answer, emptyServerError, RequestContext, UncaughtPhpError } from './http.ts';
import { fakeOpenApiDocument } from './openapi.ts';
import { type RouterContext, route, routeSegments } from './router.ts';
import { DEFAULT_SETTINGS, TeamPass3State } from './state.ts';
import type {
  TeamPass3ApiFlags,
  TeamPass3FolderRef,
  TeamPass3RequestRecord,
  TeamPass3Right,
  TeamPass3Seed,
  TeamPass3Session,
  TeamPass3Settings,
  TeamPass3StoredFolder,
  TeamPass3StoredItem,
  TeamPass3StoredUser,
} from './types.ts';

/** Options of {@link startTeamPass3Fake}. */
export interface TeamPass3FakeOptions {
  /** The instance's data. */
  seed?: TeamPass3Seed | undefined;
  /** Settings that differ from the fake's defaults (see {@link TeamPass3Settings}). */
  settings?: Partial<TeamPass3Settings> | undefined;
  /** The clock's start, in ms since the epoch. Default: the real time. */
  now?: number | undefined;
  /** The port. Default 0 (any free one). */
  port?: number | undefined;
  /** The largest request body read, in bytes. Default 8 MiB. */
  maxBodyBytes?: number | undefined;
  /** How many requests `requests` keeps, the oldest dropped first (for long benchmark runs). Default 10 000. */
  maxRequestLog?: number | undefined;
}

/** Changes to a user, as an administrator makes them. */
export interface TeamPass3UserChanges {
  /** Disable or enable the account. */
  disabled?: boolean | undefined;
  /** Switch the user's API access (`teampass_api.enabled`). */
  apiEnabled?: boolean | undefined;
  /** Administrator. */
  admin?: boolean | undefined;
  /** Manager. */
  manager?: boolean | undefined;
  /** `can_create_root_folder`. */
  canCreateRootFolder?: boolean | undefined;
  /** `can_manage_all_users`. */
  canManageAllUsers?: boolean | undefined;
  /** A new password. */
  password?: string | undefined;
  /** A new API key. */
  apiKey?: string | undefined;
}

/** Whether a rights change reaches live tokens at once. */
export interface TeamPass3CacheOption {
  /**
   * Invalidate the user's folder cache, as TeamPass's admin pages do. `false` edits the database
   * behind TeamPass's back: live tokens keep the folders they had until the next sign-in (the
   * stale `cache_tree` TeamPass shows then). Default `true`.
   */
  invalidateCache?: boolean | undefined;
}

/** The fake's clock. */
export interface TeamPass3Clock {
  /** The current time, in ms since the epoch. */
  now(): number;
  /** Sets the time. */
  set(ms: number): void;
  /** Moves the time forward. */
  advance(ms: number): void;
}

/** A running TeamPass 3 fake and its control API. */
export interface TeamPass3Fake {
  /** The instance's base URL, `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The API's URL, `<url>/api/index.php`. */
  readonly apiUrl: string;
  /** The clock every token, lock, rate limit and TOTP code is computed with. */
  readonly clock: TeamPass3Clock;
  /** The current settings. */
  readonly settings: Readonly<TeamPass3Settings>;
  /** The requests answered, oldest first (the last `maxRequestLog`). */
  readonly requests: readonly TeamPass3RequestRecord[];
  /** Changes settings (the admin pages: API, HTTPS, rate limit, token lifetime, PAT…). */
  configure(settings: Partial<TeamPass3Settings>): void;
  /** Adds folders, roles, users and items. */
  seed(seed: TeamPass3Seed): void;
  /** Changes a user's four API permissions (admin → API page); live tokens see it on their next call. */
  setApiFlags(login: string, flags: Partial<TeamPass3ApiFlags>): void;
  /** Changes a user's account. */
  updateUser(login: string, changes: TeamPass3UserChanges): void;
  /** Gives a user a role. */
  addRole(login: string, role: string, options?: TeamPass3CacheOption): void;
  /** Takes a role from a user. */
  removeRole(login: string, role: string, options?: TeamPass3CacheOption): void;
  /** Sets (or with `undefined` removes) a role's right on a folder. */
  setRoleRight(
    role: string,
    folder: TeamPass3FolderRef,
    right: TeamPass3Right | undefined,
    options?: TeamPass3CacheOption,
  ): void;
  /** Invalidates the folder cache of one user, or of all. */
  invalidateFolderCache(login?: string): void;
  /** Creates a personal access token (64 hex characters) for `authorizeToken`. */
  createPersonalAccessToken(login: string, options?: { expiresInSeconds?: number | undefined }): string;
  /** Revokes every live token of a user (the profile page's "revoke all sessions"). */
  revokeSessions(login: string): void;
  /** Successful sign-ins (`authorize` and `authorizeToken`) of a user, or of everyone. */
  signIns(login?: string): number;
  /** Every token issued, of a user or of everyone: for leak scans. */
  tokens(login?: string): string[];
  /** The sessions (one per token), of a user or of everyone. */
  sessions(login?: string): TeamPass3Session[];
  /** Forgets the request log and the sign-in counts. */
  resetCounters(): void;
  /**
   * Hangs, as a TeamPass whose PHP workers are stuck (a locked table, an exhausted pool): every
   * request from now on is accepted and read, then held without an answer until {@link recover}.
   */
  hang(): void;
  /** Ends a hang: the requests held are answered (and logged) now, as the next ones are. */
  recover(): void;
  /** The requests held unanswered by a hang now (a client that gave up no longer counts). */
  held(): number;
  /** A copy of a user. */
  user(login: string): TeamPass3StoredUser;
  /** A copy of an item (deleted ones too). */
  item(id: number): TeamPass3StoredItem | undefined;
  /** Copies of every item (deleted ones too), in id order. */
  items(): TeamPass3StoredItem[];
  /** A copy of a folder. */
  folder(ref: TeamPass3FolderRef): TeamPass3StoredFolder | undefined;
  /** Copies of every folder, in id order. */
  folders(): TeamPass3StoredFolder[];
  /** Stops the server. */
  close(): Promise<void>;
}

/**
 * Starts a TeamPass 3 fake on 127.0.0.1.
 *
 * @param options Its data, settings, clock and port.
 * @returns The running fake.
 * @example
 * ```ts
 * const fake = await startTeamPass3Fake({
 *   seed: {
 *     folders: [{ title: 'Shared' }],
 *     roles: [{ name: 'Devs', folders: { Shared: 'W' } }],
 *     users: [{ login: 'alice', password: 'pw', apiKey: 'key', roles: ['Devs'] }],
 *     items: [{ label: 'db', folder: 'Shared', password: 's3cret' }],
 *   },
 * });
 * ```
 */
export async function startTeamPass3Fake(options: TeamPass3FakeOptions = {}): Promise<TeamPass3Fake> {
  const state = new TeamPass3State({ ...DEFAULT_SETTINGS, ...options.settings });
  let nowMs = options.now ?? Date.now();
  const clock: TeamPass3Clock = {
    now: () => nowMs,
    set: (ms) => {
      nowMs = ms;
    },
    advance: (ms) => {
      nowMs += ms;
    },
  };
  const maxBodyBytes = options.maxBodyBytes ?? 8 * 1024 * 1024;
  const requests: TeamPass3RequestRecord[] = [];
  const maxRequestLog = Math.max(0, options.maxRequestLog ?? 10_000);
  const router: RouterContext = {
    secret: randomBytes(32).toString('hex'),
    url: '',
    openApi: fakeOpenApiDocument(state.settings.version),
    extensionKey: randomBytes(32).toString('hex'),
  };
  if (options.seed) state.seed(options.seed);

  /** Requests held by a hang, answered on recovery. */
  let hung: Array<() => void> | undefined;
  const server = createServer((req, res) => {
    readBody(req, maxBodyBytes)
      .then((body) => {
        if (body === undefined) return send(res, { status: 413, headers: {}, body: '' });
        if (hung) {
          const resume = () => {
            res.off('close', forget);
            if (!res.destroyed) respond(req, res, body);
          };
          const forget = () => {
            if (hung) hung = hung.filter((held) => held !== resume);
          };
          res.once('close', forget);
          hung.push(resume);
          return;
        }
        respond(req, res, body);
      })
      .catch(() => {
        if (!res.headersSent) send(res, emptyServerError());
      });
  });

  function respond(req: IncomingMessage, res: ServerResponse, body: string): void {
    try {
      const record = answer(req, body);
      requests.push(record.record);
      if (requests.length > maxRequestLog) requests.splice(0, requests.length - maxRequestLog);
      send(res, record.answer);
    } catch {
      if (!res.headersSent) send(res, emptyServerError());
    }
  }

  function answer(req: IncomingMessage, body: string): { answer: Answer; record: TeamPass3RequestRecord } {
    const raw = req.url ?? '/';
    const q = raw.indexOf('?');
    const path = q < 0 ? raw : raw.slice(0, q);
    const query = q < 0 ? '' : raw.slice(q + 1);
    const segments = routeSegments(path);
    const method = (req.method ?? 'GET').toUpperCase();
    let result: Answer;
    let login: string | undefined;
    if (segments === undefined) {
      result = {
        status: 404,
        headers: { 'content-type': 'text/html; charset=UTF-8' },
        body: '<h1>Not Found</h1>',
      };
    } else {
      const ctx = new RequestContext({
        method,
        path,
        query,
        headers: req.headers,
        body,
        ip: clientIp(req),
        segments,
        state,
        now: Math.floor(nowMs / 1000),
      });
      const forwarded = req.headers['x-forwarded-proto'];
      const secure = typeof forwarded === 'string' && forwarded.trim().toLowerCase() === 'https';
      try {
        const routed = route(ctx, router, secure);
        result = routed.answer;
        login = routed.caller?.user.login;
      } catch (error) {
        if (!(error instanceof UncaughtPhpError)) throw error;
        result = emptyServerError();
      }
    }
    return {
      answer: result,
      record: { method, url: raw, headers: { ...req.headers }, body, status: result.status, login },
    };
  }

  function clientIp(req: IncomingMessage): string {
    const forwarded = req.headers['x-forwarded-for'];
    if (state.settings.trustForwardedFor && typeof forwarded === 'string' && forwarded.trim() !== '')
      return forwarded.split(',')[0]!.trim();
    return (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  router.url = url;

  const copy = <T>(value: T): T => structuredClone(value);
  const userIdOf = (login: string | undefined) =>
    login === undefined ? undefined : state.requireUser(login).id;

  return {
    url,
    apiUrl: `${url}/api/index.php`,
    clock,
    get settings() {
      return { ...state.settings };
    },
    requests,
    configure(settings) {
      state.settings = { ...state.settings, ...settings };
    },
    seed(seed) {
      state.seed(seed);
    },
    setApiFlags(login, flags) {
      const user = state.requireUser(login);
      user.api = { ...user.api, ...flags };
    },
    updateUser(login, changes) {
      const user = state.requireUser(login);
      for (const [key, value] of Object.entries(changes)) {
        if (value !== undefined) Object.assign(user, { [key]: value });
      }
      // Only becoming (or ceasing to be) an administrator changes which folders the user sees.
      if (changes.admin !== undefined) state.invalidateCaches([user.id]);
    },
    addRole(login, role, cache) {
      const user = state.requireUser(login);
      const { id } = state.roleByName(role);
      if (!user.roleIds.includes(id)) user.roleIds.push(id);
      if (cache?.invalidateCache ?? true) state.invalidateCaches([user.id]);
    },
    removeRole(login, role, cache) {
      const user = state.requireUser(login);
      const { id } = state.roleByName(role);
      user.roleIds = user.roleIds.filter((roleId) => roleId !== id);
      if (cache?.invalidateCache ?? true) state.invalidateCaches([user.id]);
    },
    setRoleRight(role, folder, right, cache) {
      const stored = state.roleByName(role);
      const folderId = state.folderId(folder);
      if (right === undefined) stored.folders.delete(folderId);
      else stored.folders.set(folderId, right);
      if (cache?.invalidateCache ?? true)
        state.invalidateCaches(
          [...state.users.values()].filter((u) => u.roleIds.includes(stored.id)).map((u) => u.id),
        );
    },
    invalidateFolderCache(login) {
      if (login === undefined) state.invalidateAllCaches();
      else state.invalidateCaches([state.requireUser(login).id]);
    },
    createPersonalAccessToken(login, tokenOptions) {
      const user = state.requireUser(login);
      const token = randomBytes(32).toString('hex');
      const seconds = tokenOptions?.expiresInSeconds;
      state.personalAccessTokens.set(token, {
        userId: user.id,
        expiresAt: seconds === undefined ? undefined : Math.floor(nowMs / 1000) + seconds,
      });
      return token;
    },
    revokeSessions(login) {
      const id = state.requireUser(login).id;
      const now = Math.floor(nowMs / 1000);
      for (const session of state.sessions.values())
        if (session.userId === id && session.revokedAt === undefined) session.revokedAt = now;
    },
    signIns(login) {
      const id = userIdOf(login);
      if (id !== undefined) return state.signIns.get(id) ?? 0;
      let total = 0;
      for (const count of state.signIns.values()) total += count;
      return total;
    },
    tokens(login) {
      const id = userIdOf(login);
      return [...state.sessions.values()]
        .filter((s) => id === undefined || s.userId === id)
        .map((s) => s.token);
    },
    sessions(login) {
      const id = userIdOf(login);
      return [...state.sessions.values()].filter((s) => id === undefined || s.userId === id).map(copy);
    },
    hang() {
      hung ??= [];
    },
    recover() {
      const held = hung ?? [];
      hung = undefined;
      for (const resume of held) resume();
    },
    held() {
      return hung?.length ?? 0;
    },
    resetCounters() {
      requests.length = 0;
      state.signIns.clear();
    },
    user(login) {
      return copy(state.requireUser(login));
    },
    item(id) {
      const item = state.items.get(id);
      return item && copy(item);
    },
    items() {
      return state.orderedItems().map(copy);
    },
    folder(ref) {
      try {
        return copy(state.folders.get(state.folderId(ref)));
      } catch {
        return undefined;
      }
    },
    folders() {
      return [...state.folders.values()].sort((a, b) => a.id - b.id).map(copy);
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** Headers every answer of TeamPass's front controller carries. */
const COMMON_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'content-type': 'application/json; charset=UTF-8',
  'access-control-allow-methods': 'POST, GET, PUT, DELETE',
  'access-control-max-age': '3600',
  'access-control-allow-headers':
    'Content-Type, Access-Control-Allow-Headers, Authorization, X-Requested-With',
  'access-control-expose-headers': 'X-Api-Version, X-Total-Count, Location, Allow',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-api-version': '1',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

function send(res: ServerResponse, answer: Answer): void {
  const body = Buffer.from(answer.body, 'utf8');
  res.writeHead(answer.status, {
    ...COMMON_HEADERS,
    ...answer.headers,
    'content-length': String(body.length),
  });
  res.end(body);
}

function readBody(req: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
