/**
 * What stands between an account's wire client and TeamPass, so that the server never amplifies
 * a fault of the upstream (the way Envoy guards an upstream cluster):
 *
 * - the account's holds, shared through the server's database: a refused sign-in suspends the
 *   account until its credentials are registered again (their fingerprint changes); a 429 stops
 *   its calls until `Retry-After` has passed;
 * - a pace per account below TeamPass's limit (a `@vaultline/rate-limit` token bucket, shared
 *   through the database on PostgreSQL), and at most `maxConcurrent` exchanges in flight;
 * - a circuit breaker per upstream: after consecutive timeouts (or unreachable answers) every
 *   call fails at once until one probe gets an answer;
 * - identical reads in flight (same URL, same session) made once, their answer shared;
 * - every exchange bound to its caller ({@link currentUpstreamCaller}): cancelled, queued or in
 *   flight, once every caller it serves went away or ran out of time.
 *
 * The guard works on HTTP exchanges (the client's `fetch`), so it counts what TeamPass counts.
 *
 * @module
 */

import { paceBelowTeamPass3 } from '@vaultline/protocol/wire';
import {
  type Limiter,
  memoryTokenBucket,
  postgresTokenBucket,
  type TokenBucketLimit,
} from '@vaultline/rate-limit';
import type { Database, Queryable } from '@vaultline/store';
import { DEFAULT_UPSTREAM_CALLS_PER_MINUTE } from '../constants.ts';
import { RateLimitedError, VaultServerError } from '../errors.ts';
import { currentUpstreamCaller } from './upstream-caller.ts';

/** How long the holds read from the database are trusted before they are read again, in ms. */
const HOLDS_REFRESH_MS = 1_000;

/**
 * The pace of an account: a token bucket TeamPass's minute estimate never counts above
 * `perMinute` (`paceBelowTeamPass3`).
 *
 * @param perMinute The most TeamPass may count in a minute (at least 2).
 * @returns The burst and the rate.
 */
export function upstreamPaceLimit(perMinute = DEFAULT_UPSTREAM_CALLS_PER_MINUTE): TokenBucketLimit {
  return paceBelowTeamPass3(perMinute);
}

/**
 * The pace of the upstream's accounts, a token bucket per account: exact across instances on
 * PostgreSQL (TeamPass counts per user, whichever instance calls; one statement per call), in
 * memory for PGlite's one instance. When the database cannot be reached, calls are paced in this
 * instance's memory instead and `onError` is told (once until the database answers again).
 *
 * @param db The server's database.
 * @param tableName The pace's table (migration 17).
 * @param perMinute The most TeamPass may count of an account's calls in a minute.
 * @param onError Told when the database could no longer be reached.
 * @returns The limiter, keyed by account id.
 */
export function upstreamPace(
  db: Database,
  tableName: string,
  perMinute: number,
  onError?: (error: unknown) => void,
): Limiter {
  const limit = upstreamPaceLimit(perMinute);
  const local = memoryTokenBucket(limit);
  if (db.kind !== 'postgres') return local;
  const shared = postgresTokenBucket({ db, tableName, keyPrefix: 'upstream-pace', ...limit });
  let failing = false;
  return {
    points: shared.points,
    async hit(key) {
      try {
        const decision = await shared.hit(key);
        failing = false;
        return decision;
      } catch (error) {
        // Told once per outage, not once per call.
        if (!failing) onError?.(error);
        failing = true;
        return local.hit(key);
      }
    },
    flush: async () => {},
    close: async () => {},
  };
}

/** The circuit breaker of one upstream. */
export interface UpstreamBreaker {
  /** Milliseconds until a call may go (0: now); a call let through half-open is the probe. */
  wait(): number;
  /** Takes the probe's place when half-open; `false` when another call holds it or the breaker is open. */
  enter(): boolean;
  /** An answer arrived. */
  succeeded(): void;
  /** No answer in time, or unreachable. */
  failed(): void;
  /** A call let through left without an outcome (its callers went away). */
  left(): void;
}

/** Settings of a breaker. */
export interface BreakerOptions {
  /** Consecutive failures that open it. Default 5. */
  readonly failures?: number | undefined;
  /** How long it stays open before a probe, in ms. Default 5 000. */
  readonly openMs?: number | undefined;
  /** The clock. */
  readonly now?: (() => number) | undefined;
}

/**
 * Creates a breaker: closed, open after `failures` consecutive failures for `openMs`, then
 * half-open: one call (the probe) goes, the rest fail at once; the probe's answer closes it, its
 * failure opens it again.
 *
 * @param options The threshold and the open time.
 * @returns The breaker.
 */
export function createUpstreamBreaker(options: BreakerOptions = {}): UpstreamBreaker {
  const threshold = options.failures ?? 5;
  const openMs = options.openMs ?? 5_000;
  const now = options.now ?? Date.now;
  let consecutive = 0;
  let openUntil = 0;
  let probing = false;
  return {
    wait() {
      if (openUntil === 0) return 0;
      const left = openUntil - now();
      if (left > 0) return left;
      return probing ? openMs : 0;
    },
    enter() {
      if (openUntil === 0) return true;
      if (probing || openUntil > now()) return false;
      probing = true;
      return true;
    },
    succeeded() {
      consecutive = 0;
      openUntil = 0;
      probing = false;
    },
    failed() {
      consecutive++;
      if (probing || consecutive >= threshold) openUntil = now() + openMs;
      probing = false;
    },
    left() {
      probing = false;
    },
  };
}

/** Settings of an account's guard. */
export interface AccountGuardOptions {
  readonly accountId: number;
  /** The account's name, for messages. */
  readonly accountName: string;
  /** The server's database: the holds. */
  readonly db: Queryable;
  /** The upstream's breaker, shared by its accounts. */
  readonly breaker: UpstreamBreaker;
  /** The pace of the upstream's calls, counted per account. */
  readonly pace: Limiter;
  /** Exchanges in flight at once. Default 8. */
  readonly maxConcurrent?: number | undefined;
  /** The fetch that reaches the upstream. */
  readonly fetch?: typeof globalThis.fetch | undefined;
  /** The clock. */
  readonly now?: (() => number) | undefined;
}

/** What a guard knows of its account's holds. */
interface Holds {
  /** The fingerprint of the credentials registered now. */
  current: string | undefined;
  /** The fingerprint of credentials TeamPass refused. */
  refused: string | undefined;
  /** No call before this (epoch ms). */
  limitedUntil: number;
  /** When they were read. */
  readAt: number;
}

/** The guard of one account. */
export interface AccountGuard {
  /** The fetch the account's wire client sends with. */
  readonly fetch: typeof globalThis.fetch;
  /**
   * Reads the holds when they are old, and says why no call may go now.
   *
   * @returns The error to answer with, or `undefined` when calls may go.
   */
  check(): Promise<VaultServerError | undefined>;
  /** Why calls stop now, from what is known in memory; `undefined` when they may go. */
  stopped(): VaultServerError | undefined;
  /** Whether the credentials registered now are not the ones this guard's client signs in with. */
  replaced(): boolean;
  /** TeamPass refused the credentials: suspends the account on every instance. */
  refuse(): Promise<void>;
}

/** Why an exchange was not sent: the caller is answered with the guard's reason, not this. */
class NotSent extends Error {
  override name = 'NotSent';
}

/** A read made once for every caller that asks it while it runs. */
interface Flight {
  readonly promise: Promise<SharedAnswer>;
  readonly controller: AbortController;
  waiting: number;
  /** The latest deadline of its callers: it waits for the pace as long as one of them can. */
  deadline: number;
  /** When it was made (epoch ms): a read made before a write ended may not show it. */
  readonly madeAt: number;
}

interface SharedAnswer {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly bytes: Uint8Array;
}

/**
 * Creates an account's guard; its holds are read on the first {@link AccountGuard.check}.
 *
 * @param options The account, the database, the breaker and the bounds.
 * @returns The guard.
 */
export function createAccountGuard(options: AccountGuardOptions): AccountGuard {
  const { accountId, accountName, db, breaker, pace } = options;
  const upstream = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  const slots = createSlots(options.maxConcurrent ?? 8);
  const flights = new Map<string, Flight>();
  /** Reads answered lately (2xx), kept while a caller who came before their answer may still ask. */
  const answered = new Map<string, { answer: SharedAnswer; at: number; keepUntil: number }>();
  /** When the last write of the account was sent or ended: no read made before it is shared. */
  let lastWrite = 0;
  const forgetAnswered = (at: number) => {
    for (const [key, kept] of answered) if (kept.keepUntil <= at) answered.delete(key);
  };
  let holds: Holds | undefined;
  /** The fingerprint of the credentials the client signs in with: those read first. */
  let signsInWith: string | undefined;
  let reading: Promise<void> | undefined;

  const read = async () => {
    const [row] = await db.query<{ current: string; refused: string | null; limited_until: Date | null }>(
      `SELECT md5(a.credentials) AS current, h.refused_credentials AS refused, h.limited_until
         FROM upstream_accounts a LEFT JOIN upstream_holds h ON h.account_id = a.id WHERE a.id = $1`,
      [accountId],
    );
    const limitedUntil = Math.max(holds?.limitedUntil ?? 0, row?.limited_until?.getTime() ?? 0);
    holds = { current: row?.current, refused: row?.refused ?? undefined, limitedUntil, readAt: now() };
    signsInWith ??= row?.current;
  };

  const suspended = () =>
    new VaultServerError(
      'server',
      `The upstream TeamPass refused the credentials of account ${JSON.stringify(accountName)}; it is suspended and signs in no more until an operator registers its credentials again (vaultline-server upstream update).`,
      502,
      'upstream',
    );

  const stopped = (): VaultServerError | undefined => {
    if (holds?.refused !== undefined && holds.refused === holds.current) return suspended();
    const limited = (holds?.limitedUntil ?? 0) - now();
    if (limited > 0)
      return new RateLimitedError(
        `The upstream TeamPass is rate-limiting account ${JSON.stringify(accountName)}; no call is sent to it before Retry-After.`,
        Math.max(1, Math.ceil(limited / 1000)),
        503,
      );
    const open = breaker.wait();
    if (open > 0)
      return new RateLimitedError(
        'The upstream TeamPass is not answering: calls to it are held until one gets an answer.',
        Math.max(1, Math.ceil(open / 1000)),
        503,
      );
    return undefined;
  };

  const limitedFor = async (retryAfter: string | null) => {
    const seconds = Number(retryAfter);
    const until = now() + (Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 5_000);
    if (holds) holds.limitedUntil = Math.max(holds.limitedUntil, until);
    await db.query(
      `INSERT INTO upstream_holds (account_id, limited_until) VALUES ($1, to_timestamp($2::double precision / 1000))
       ON CONFLICT (account_id) DO UPDATE SET limited_until = GREATEST(upstream_holds.limited_until, EXCLUDED.limited_until)`,
      [accountId, until],
    );
  };

  /** Waits for the pace to allow one more exchange, within the latest deadline of its callers. */
  const paced = async (signal: AbortSignal, deadline: () => number) => {
    for (;;) {
      const { allowed, retryAfterSeconds } = await pace.hit(String(accountId));
      if (allowed) return;
      const waitMs = retryAfterSeconds * 1000;
      if (now() + waitMs > deadline())
        throw new NotSent(`paced: the next place is in ${retryAfterSeconds} s`, {
          cause: new RateLimitedError(
            `Account ${JSON.stringify(accountName)} is at the pace this server keeps below the upstream TeamPass's limit; try again later.`,
            retryAfterSeconds,
            503,
          ),
        });
      await sleep(waitMs, signal);
    }
  };

  /**
   * One exchange with the upstream, within the bounds; its answer read whole. A place in flight
   * is taken once the pace allows the exchange: waiting for the pace is not being in flight.
   */
  const exchange = async (
    url: string,
    init: RequestInit | undefined,
    signal: AbortSignal,
    deadline: () => number,
  ): Promise<SharedAnswer> => {
    const holdsNow = () => {
      const reason = stopped();
      if (reason) throw new NotSent(reason.message, { cause: reason });
    };
    holdsNow();
    await paced(signal, deadline);
    const release = await slots.take(signal);
    let entered = false;
    let outcome = false;
    try {
      // A 429 or a refusal may have come while this one waited.
      holdsNow();
      if (!breaker.enter()) {
        const open = stopped();
        throw new NotSent('the breaker is open', { cause: open });
      }
      entered = true;
      let response: Response;
      try {
        response = await upstream(url, { ...init, signal });
        const bytes = new Uint8Array(await response.arrayBuffer());
        breaker.succeeded();
        outcome = true;
        if (response.status === 429) await limitedFor(response.headers.get('retry-after')).catch(() => {});
        const headers = new Headers(response.headers);
        // The body is handed on decoded and whole.
        headers.delete('content-encoding');
        headers.delete('content-length');
        return { status: response.status, statusText: response.statusText, headers, bytes };
      } catch (error) {
        // Out of time, or unreachable; a caller who went away says nothing of the upstream.
        if (!(signal.aborted && !isTimeout(signal.reason))) {
          breaker.failed();
          outcome = true;
        }
        throw error;
      }
    } finally {
      if (entered && !outcome) breaker.left();
      release();
    }
  };

  const guardedFetch: typeof globalThis.fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const method = (init?.method ?? 'GET').toUpperCase();
    const caller = currentUpstreamCaller();
    const own = [init?.signal, caller?.signal].filter((s): s is AbortSignal => s != null);
    const signal = own.length === 0 ? undefined : own.length === 1 ? own[0] : AbortSignal.any(own);
    const deadline = caller?.deadline ?? Number.POSITIVE_INFINITY;
    // Reads with the same URL and session are the same read: made once while it runs.
    const key =
      method === 'GET' ? `${url}\u0000${new Headers(init?.headers).get('authorization') ?? ''}` : undefined;
    // A write may change what a read made before it says: none is shared past it.
    if (key === undefined) {
      answered.clear();
      lastWrite = now();
    }
    // An answer that came after this caller's request arrived is one it could have waited for in
    // flight: it shares it (a request that arrived later asks TeamPass again).
    const kept = key === undefined ? undefined : answered.get(key);
    if (kept && caller && caller.startedAt <= kept.at && !flights.has(key as string))
      return responseOf(kept.answer);
    let flight = key === undefined ? undefined : flights.get(key);
    if (!flight || flight.controller.signal.aborted || flight.madeAt <= lastWrite) {
      const controller = new AbortController();
      const timing = { deadline };
      const started = exchange(url, init, controller.signal, () => timing.deadline);
      flight = Object.assign(timing, { promise: started, controller, waiting: 0, madeAt: now() });
      if (key === undefined) {
        const ended = () => {
          lastWrite = now();
        };
        started.then(ended, ended);
      } else {
        flights.set(key, flight);
        const made = flight;
        const keepFor = caller?.deadlineMs ?? 0;
        const done = () => {
          if (flights.get(key) === made) flights.delete(key);
        };
        started.then((answer) => {
          done();
          const at = now();
          forgetAnswered(at);
          // Kept while a caller that arrived before it may still ask: no longer.
          if (answer.status >= 200 && answer.status < 300 && keepFor > 0 && made.madeAt > lastWrite)
            answered.set(key, { answer, at, keepUntil: at + keepFor });
        }, done);
      }
    }
    flight.deadline = Math.max(flight.deadline, deadline);
    let answer: SharedAnswer;
    try {
      answer = await join(flight, signal);
    } catch (error) {
      const reason = notSentReason(error);
      if (reason && caller) caller.notSent = reason;
      throw error;
    }
    return responseOf(answer);
  };

  return {
    fetch: guardedFetch,
    async check() {
      if (!holds || now() - holds.readAt >= HOLDS_REFRESH_MS) {
        reading ??= read().finally(() => {
          reading = undefined;
        });
        await reading;
      }
      return stopped();
    },
    stopped,
    replaced: () =>
      holds?.current !== undefined && signsInWith !== undefined && holds.current !== signsInWith,
    async refuse() {
      answered.clear();
      if (signsInWith === undefined) return;
      if (holds) holds.refused = signsInWith;
      await db.query(
        `INSERT INTO upstream_holds (account_id, refused_credentials) VALUES ($1, $2)
         ON CONFLICT (account_id) DO UPDATE SET refused_credentials = EXCLUDED.refused_credentials`,
        [accountId, signsInWith],
      );
    },
  };
}

function responseOf(answer: SharedAnswer): Response {
  return new Response(answer.status === 204 || answer.status === 304 ? null : answer.bytes, {
    status: answer.status,
    statusText: answer.statusText,
    headers: answer.headers,
  });
}

/** Waits for a flight's answer as one of its callers; the flight is cancelled when its last caller leaves. */
function join(flight: Flight, signal: AbortSignal | undefined): Promise<SharedAnswer> {
  flight.waiting++;
  if (!signal) return flight.promise;
  return new Promise<SharedAnswer>((resolve, reject) => {
    const leave = () => {
      flight.waiting--;
      if (flight.waiting === 0) flight.controller.abort(signal.reason);
      reject(signal.reason);
    };
    if (signal.aborted) return leave();
    signal.addEventListener('abort', leave, { once: true });
    flight.promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', leave));
  });
}

const isTimeout = (reason: unknown) => reason instanceof Error && reason.name === 'TimeoutError';

/** The reason an exchange was not sent (the guard's answer for its caller), if that is why it failed. */
export function notSentReason(error: unknown): VaultServerError | undefined {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 8; at = at.cause, depth++) {
    if (at instanceof NotSent && at.cause instanceof VaultServerError) return at.cause;
  }
  return undefined;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}

/** Places in flight, taken in order; a waiter whose signal aborts leaves the line. */
function createSlots(size: number) {
  let free = size;
  const line: Array<() => void> = [];
  const release = () => {
    const next = line.shift();
    if (next) next();
    else free++;
  };
  return {
    take(signal: AbortSignal): Promise<() => void> {
      if (signal.aborted) return Promise.reject(signal.reason);
      if (free > 0) {
        free--;
        return Promise.resolve(once(release));
      }
      return new Promise((resolve, reject) => {
        const grant = () => {
          signal.removeEventListener('abort', leave);
          resolve(once(release));
        };
        const leave = () => {
          const at = line.indexOf(grant);
          if (at !== -1) line.splice(at, 1);
          reject(signal.reason);
        };
        line.push(grant);
        signal.addEventListener('abort', leave, { once: true });
      });
    },
  };
}

function once(action: () => void): () => void {
  let done = false;
  return () => {
    if (!done) {
      done = true;
      action();
    }
  };
}
