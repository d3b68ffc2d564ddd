/**
 * A TeamPass 3 session: signs in once (login + password + API key, or a personal access token),
 * keeps the JWT until shortly before the `exp` it carries, signs in again once when a call answers
 * 401 and retries that call once, waits out a 429 for as long as `Retry-After` says (within a
 * bound), shares one sign-in between concurrent calls, reuses a token from an optional cache, reads
 * paged operations to the end (with a cap it reports), and signs out on `dispose()`. The password,
 * the API key, the personal access token and every JWT it held are removed from everything it
 * reports.
 *
 * @see ./README.md
 * @module
 */

import * as v from 'valibot';
import { createRedactor, type Redactor, VaultError, withTokensRedacted } from '../errors.ts';
import { sleep as abortableSleep, untilAborted } from '../internal/abort.ts';
import { base64ToBytes } from '../internal/base64.ts';
import { createTeamPass3Caller, type TeamPass3CallerOptions, type TeamPass3Failure } from './caller.ts';
import {
  type TeamPass3EndpointName,
  type TeamPass3Input,
  type TeamPass3Output,
  type TeamPass3PagedName,
  teampass3Endpoints,
} from './endpoints.ts';
import { decodeTeamPassEntities } from './html.ts';
import { type TeamPass3Claims, TeamPass3ClaimsSchema } from './schemas.ts';

/** What signing in needs: a password and an API key, or a personal access token. */
export type TeamPass3Credentials =
  | {
      /** The login. */
      login: string;
      /** The password (TeamPass trims it: leading and trailing spaces cannot sign in). */
      password: string;
      /** The user's personal API key (profile page). */
      apiKey: string;
    }
  | {
      /** The login. */
      login: string;
      /** A personal access token (64 hex characters), where the site enables them. */
      personalAccessToken: string;
    };

/**
 * Where a short-lived process keeps its token between runs (the OS keychain, SecretStorage). The
 * session reads it once before it would sign in, writes every new token, and clears it when the
 * token is refused or the session is disposed.
 */
export interface TeamPass3TokenCache {
  /** The token kept, if any. */
  get(): string | undefined | Promise<string | undefined>;
  /** Keeps a token, or forgets it (`undefined`). */
  set(token: string | undefined): void | Promise<void>;
}

/** Options of {@link createTeamPass3Session}. */
export interface TeamPass3SessionOptions extends Omit<TeamPass3CallerOptions, 'redact'> {
  /** How to sign in. */
  credentials: TeamPass3Credentials;
  /** A token kept between processes. */
  tokenCache?: TeamPass3TokenCache | undefined;
  /**
   * Sign in again when fewer than this many ms remain before `exp`. Default 60 000, and at most a
   * quarter of the token's lifetime (TeamPass allows one-minute tokens).
   */
  refreshMarginMs?: number | undefined;
  /** The longest single wait on a 429, in ms; a longer `Retry-After` fails at once. Default 30 000. */
  maxRetryAfterMs?: number | undefined;
  /** How many 429s a call waits out before failing with `rate_limited`. Default 2. */
  rateLimitRetries?: number | undefined;
  /** The most records a paged read returns. Default 100 000. */
  maxItems?: number | undefined;
  /** Records asked per page. Default 500 (TeamPass's cap). */
  pageSize?: number | undefined;
  /** Pages read at once after the first. Default 4. */
  pageConcurrency?: number | undefined;
  /** The clock, in ms since the epoch. Default `Date.now`. */
  now?: (() => number) | undefined;
  /** How to wait out a 429. Default a timer. */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
}

/** Per-call options. */
export interface TeamPass3SessionCallOptions {
  /** Cancels the call. */
  signal?: AbortSignal | undefined;
}

/** Options of a paged read. */
export interface TeamPass3ReadAllOptions extends TeamPass3SessionCallOptions {
  /** The most records returned. Default: the session's `maxItems`. */
  maxItems?: number | undefined;
}

/** The record type of a paged operation's answer. */
export type TeamPass3Record<K extends TeamPass3PagedName> = TeamPass3Output<K>[number];

/** The input of a paged read: the operation's, without `limit` and `offset`. */
export type TeamPass3PagedInput<K extends TeamPass3PagedName> =
  TeamPass3Input<K> extends infer T ? (T extends unknown ? Omit<T, 'limit' | 'offset'> : never) : never;

/** What a paged read gathered. */
export interface TeamPass3Page<K extends TeamPass3PagedName> {
  /** The records, in the server's order. */
  items: TeamPass3Record<K>[];
  /** `X-Total-Count`, when the server sent it. */
  total: number | undefined;
  /** Whether more records exist than `maxItems` let through. */
  truncated: boolean;
}

/** A signed-in TeamPass 3 user. */
export interface TeamPass3Session {
  /** The base URL. */
  readonly baseUrl: string;
  /** Removes the password, the API key, the personal access token and every JWT from text. */
  readonly redact: Redactor;
  /** Sign-ins this session made (a cached or kept token costs none). */
  readonly signIns: number;
  /**
   * Calls an operation as the signed-in user.
   *
   * @param name The operation.
   * @param input Its parameters.
   * @param options A signal.
   * @returns The parsed answer.
   * @throws {VaultError} With the server's words; `rate_limited` when 429s outlast the bound.
   */
  call<K extends TeamPass3EndpointName>(
    name: K,
    input: TeamPass3Input<K>,
    options?: TeamPass3SessionCallOptions,
  ): Promise<TeamPass3Output<K>>;
  /**
   * Calls an operation once per input, a few at a time (TeamPass 3 reads one item per call), and
   * resolves to the answers in input order; the first failure rejects.
   *
   * @param name The operation.
   * @param inputs One input per call.
   * @param options How many calls run at once (default 4) and a signal.
   * @returns The parsed answers, in input order.
   */
  callEach<K extends TeamPass3EndpointName>(
    name: K,
    inputs: readonly TeamPass3Input<K>[],
    options?: TeamPass3SessionCallOptions & { concurrency?: number | undefined },
  ): Promise<TeamPass3Output<K>[]>;
  /**
   * Reads a paged operation to the end, or to `maxItems`.
   *
   * @param name The operation.
   * @param input Its parameters, without `limit` and `offset`.
   * @param options The cap and a signal.
   * @returns The records, the total and whether the cap cut them.
   */
  readAll<K extends TeamPass3PagedName>(
    name: K,
    input: TeamPass3PagedInput<K>,
    options?: TeamPass3ReadAllOptions,
  ): Promise<TeamPass3Page<K>>;
  /**
   * Who is signed in, from the token (signs in when needed).
   *
   * @returns The token's claims.
   */
  user(options?: TeamPass3SessionCallOptions): Promise<TeamPass3Claims>;
  /**
   * Ends the session: signs the token out (`auth/logout`) and clears the token cache. With
   * `signOut: false`, only forgets the token here and leaves the cache for the next process.
   */
  dispose(options?: { signOut?: boolean | undefined }): Promise<void>;
}

interface Held {
  token: string;
  claims: TeamPass3Claims;
  /** The server's clock minus ours, from the token's `iat` at sign-in. */
  skewMs: number;
}

/**
 * Creates a session. Nothing is sent until the first call.
 *
 * @param options The server, the credentials and the limits.
 * @returns The session.
 * @example
 * ```ts
 * const session = createTeamPass3Session({
 *   baseUrl: 'https://teampass.example.com',
 *   credentials: { login: 'alice', password, apiKey },
 * });
 * const folders = await session.call('writableFolders', {});
 * const { items } = await session.readAll('itemsInFolders', { folders: folders.map((f) => f.id) });
 * await session.dispose();
 * ```
 */
export function createTeamPass3Session(options: TeamPass3SessionOptions): TeamPass3Session {
  const { credentials, tokenCache } = options;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  const marginMs = options.refreshMarginMs ?? 60_000;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000;
  const rateLimitRetries = options.rateLimitRetries ?? 2;
  const maxItems = options.maxItems ?? 100_000;
  const pageSize = options.pageSize ?? 500;
  const pageConcurrency = Math.max(1, options.pageConcurrency ?? 4);
  if (credentials.login.trim() === '')
    throw new VaultError('invalid_request', 'Expected a login, received an empty one.');
  const secret =
    'personalAccessToken' in credentials ? credentials.personalAccessToken : credentials.password;
  if (secret === '')
    throw new VaultError(
      'invalid_request',
      'Expected a password or a personal access token, received an empty one.',
    );

  const secrets = new Set<string>(
    'personalAccessToken' in credentials
      ? [credentials.personalAccessToken]
      : [credentials.password, credentials.apiKey],
  );
  let secretRedactor = createRedactor([...secrets]);
  const remember = (value: string) => {
    if (value !== '' && !secrets.has(value)) {
      secrets.add(value);
      secretRedactor = createRedactor([...secrets]);
    }
  };
  const redact: Redactor = (text) => withTokensRedacted(secretRedactor(text));
  const caller = createTeamPass3Caller({ ...options, redact });

  let held: Held | undefined;
  let pending: Promise<Held> | undefined;
  let cacheRead = false;
  let signIns = 0;
  let disposed = false;

  function usable(entry: Held | undefined): entry is Held {
    if (!entry) return false;
    const { expiresAt, issuedAt } = entry.claims;
    const lifetime = issuedAt === undefined ? Number.POSITIVE_INFINITY : expiresAt - issuedAt;
    const margin = Math.min(marginMs, lifetime / 4);
    return expiresAt - margin > now() + entry.skewMs;
  }

  function hold(token: string, fresh: boolean): Held | undefined {
    const claims = claimsOf(token);
    if (!claims) return undefined;
    remember(token);
    const skewMs = fresh && claims.issuedAt !== undefined ? claims.issuedAt - now() : 0;
    // Only a skew beyond a clock tick matters; a fresh token's iat is "now" on the server.
    return { token, claims, skewMs: Math.abs(skewMs) < 2000 ? 0 : skewMs };
  }

  /** Signs in. Not tied to one caller's signal: concurrent calls share it. */
  async function signIn(): Promise<Held> {
    const result =
      'personalAccessToken' in credentials
        ? await caller.send('authorizeToken', {
            login: credentials.login,
            token: credentials.personalAccessToken,
          })
        : await caller.send('authorize', {
            login: credentials.login,
            password: credentials.password,
            apikey: credentials.apiKey,
          });
    if (!result.ok) throw result.error.code === 'unauthorized' ? signInRefused(result.error) : result.error;
    signIns++;
    const entry = hold(result.data.token, true);
    if (!entry) {
      throw new VaultError('invalid_response', 'authorize answered a token whose claims cannot be read.', {
        endpoint: 'authorize',
        status: result.status,
      });
    }
    await tokenCache?.set(entry.token);
    return entry;
  }

  async function acquire(): Promise<Held> {
    if (!cacheRead && tokenCache) {
      cacheRead = true;
      const cached = await tokenCache.get();
      const entry = cached ? hold(cached, false) : undefined;
      // A token of another login (a cache shared by mistake) is never used.
      if (usable(entry) && sameLogin(entry.claims.login, credentials.login)) return entry;
    }
    return signIn();
  }

  async function currentToken(signal: AbortSignal | undefined): Promise<Held> {
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
  }

  async function forget(token: string): Promise<void> {
    if (held?.token !== token) return;
    held = undefined;
    await tokenCache?.set(undefined);
  }

  async function send<K extends TeamPass3EndpointName>(
    name: K,
    input: TeamPass3Input<K>,
    signal: AbortSignal | undefined,
  ): Promise<{ data: TeamPass3Output<K>; total: number | undefined }> {
    const invalid = caller.validate(name, input);
    if (invalid) throw invalid;
    const bearer = teampass3Endpoints[name].auth === 'bearer';
    let signedInAgain = false;
    let waits = 0;
    for (;;) {
      const entry = bearer ? await currentToken(signal) : undefined;
      const result = await caller.send(name, input, { token: entry?.token, signal });
      if (result.ok) return { data: result.data, total: result.total };
      if (entry && result.status === 401 && !signedInAgain) {
        signedInAgain = true;
        await forget(entry.token);
        continue;
      }
      if (result.status === 429) {
        const wait = result.retryAfterMs ?? 1000;
        if (waits < rateLimitRetries && wait <= maxRetryAfterMs) {
          waits++;
          await sleep(wait, signal);
          if (signal?.aborted)
            throw new VaultError('aborted', `${teampass3Endpoints[name].operation} was cancelled.`);
          continue;
        }
        throw rateLimited(result, waits);
      }
      throw result.error;
    }
  }

  function rateLimited(result: TeamPass3Failure, waits: number): VaultError {
    const error = result.error;
    const asked = result.retryAfterMs ?? 1000;
    const seconds = (ms: number) => `${Math.ceil(ms / 1000)} s`;
    const after = result.retryAfterMs === undefined ? '' : ` The server asks to wait ${seconds(asked)}.`;
    // Waited out already, or a wait longer than this client waits (or no wait allowed): say which.
    const why =
      waits > 0
        ? `still limited after ${waits} wait${waits === 1 ? '' : 's'}`
        : rateLimitRetries > 0 && asked > maxRetryAfterMs
          ? `not waited: the wait asked is longer than the ${seconds(maxRetryAfterMs)} this client waits`
          : 'not waited';
    return new VaultError('rate_limited', `${error.message.replace(/\.$/, '')}; ${why}.${after}`, {
      status: error.status,
      serverMessage: error.serverMessage,
      endpoint: error.endpoint,
      url: error.url,
      retryAfterMs: result.retryAfterMs,
      cause: error,
    });
  }

  async function readAll<K extends TeamPass3PagedName>(
    name: K,
    input: TeamPass3PagedInput<K>,
    readOptions: TeamPass3ReadAllOptions = {},
  ): Promise<TeamPass3Page<K>> {
    const cap = readOptions.maxItems ?? maxItems;
    const maxLimit = teampass3Endpoints[name].pagination.maxLimit;
    const size = Math.max(1, Math.min(pageSize, maxLimit ?? pageSize, cap));
    const pageAt = (offset: number) =>
      send(name, { ...input, limit: size, offset } as TeamPass3Input<K>, readOptions.signal);
    const first = await pageAt(0);
    const pages: TeamPass3Record<K>[][] = [first.data];
    let total = first.total;
    if (total !== undefined) {
      const offsets: number[] = [];
      for (let offset = size; offset < Math.min(total, cap); offset += size) offsets.push(offset);
      let next = 0;
      const results: TeamPass3Record<K>[][] = [];
      const worker = async () => {
        while (next < offsets.length) {
          const index = next++;
          const page = await pageAt(offsets[index]!);
          results[index] = page.data;
          total = page.total ?? total;
        }
      };
      await Promise.all(Array.from({ length: Math.min(pageConcurrency, offsets.length) }, worker));
      pages.push(...results);
    } else {
      // No total: read until a short page.
      let last = first.data;
      let offset = size;
      while (last.length >= size && offset < cap) {
        last = (await pageAt(offset)).data;
        pages.push(last);
        offset += size;
      }
    }
    const seen = new Set<number>();
    const items: TeamPass3Record<K>[] = [];
    for (const record of pages.flat()) {
      const id = idOf(record);
      if (id !== undefined) {
        if (seen.has(id)) continue;
        seen.add(id);
      }
      items.push(record);
    }
    const truncated = total !== undefined ? total > cap : items.length > cap;
    return { items: items.slice(0, cap), total, truncated };
  }

  return {
    baseUrl: caller.baseUrl,
    redact,
    get signIns() {
      return signIns;
    },
    async call(name, input, callOptions) {
      return (await send(name, input, callOptions?.signal)).data;
    },
    async callEach(name, inputs, eachOptions) {
      const results: TeamPass3Output<typeof name>[] = [];
      let next = 0;
      const worker = async () => {
        while (next < inputs.length) {
          const index = next++;
          results[index] = (await send(name, inputs[index]!, eachOptions?.signal)).data;
        }
      };
      const width = Math.max(1, Math.min(eachOptions?.concurrency ?? pageConcurrency, inputs.length));
      await Promise.all(Array.from({ length: width }, worker));
      return results;
    },
    readAll,
    async user(callOptions) {
      return (await currentToken(callOptions?.signal)).claims;
    },
    async dispose(disposeOptions) {
      if (disposed) return;
      disposed = true;
      const signOut = disposeOptions?.signOut ?? true;
      let entry = held;
      if (pending) entry = await pending.catch(() => undefined);
      held = undefined;
      if (!signOut) return;
      if (!entry && tokenCache && !cacheRead) {
        const cached = await tokenCache.get();
        entry = cached ? hold(cached, false) : undefined;
      }
      if (entry && entry.claims.expiresAt > now() + entry.skewMs) {
        // A refused sign-out (the token expired or was revoked meanwhile) leaves nothing to undo.
        await caller.send('logout', {}, { token: entry.token });
      }
      await tokenCache?.set(undefined);
    },
  };
}

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

/** TeamPass 3's words when it locked sign-ins after repeated failures (of the login, or of the address). */
const LOCKED_WORDS = /^login failed\.\s*\(account temporarily locked\)$/i;

/**
 * The error of a refused sign-in, marked `sign_in_refused`: TeamPass answers a wrong login,
 * password, API key or personal access token, and a user without API access, all alike; or
 * `sign_in_locked` when it said the sign-in was locked for a while, which is not about the
 * credentials.
 */
function signInRefused(error: VaultError): VaultError {
  const locked = LOCKED_WORDS.test((error.serverMessage ?? '').trim());
  return error.with({ reason: locked ? 'sign_in_locked' : 'sign_in_refused' });
}

function sameLogin(claimed: string, login: string): boolean {
  return decodeTeamPassEntities(claimed).trim().toLowerCase() === login.trim().toLowerCase();
}

function idOf(record: unknown): number | undefined {
  if (typeof record !== 'object' || record === null || !('id' in record)) return undefined;
  return typeof record.id === 'number' ? record.id : undefined;
}
