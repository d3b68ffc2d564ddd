/**
 * The upstream sessions: one wire client (`createWireClient`: the server speaks the legacy API's
 * operations by name, upstream too) per account and instance (so on TeamPass 3 one session
 * token, renewed by the core's session shortly before it expires and once on a 401), its calls
 * bounded, its failures answered as what they are for the server's own clients: the upstream's
 * refusal of the server's credentials is the server's problem (502, logged once), a 429 queues
 * within a bound then answers 503 with `Retry-After`, an upstream down 502, a hung one 503.
 * Signed out on shutdown.
 *
 * @module
 */

import { type CredentialKind, credentialsFrom, VaultError } from '@vaultline/protocol';
import { createWireClient, type WireClient } from '@vaultline/protocol/wire';
import { type Limiter, memoryTokenBucket } from '@vaultline/rate-limit';
import type { Queryable } from '@vaultline/store';
import type { Logger } from 'pino';
import type { SecretBox } from '../crypto/secret-box.ts';
import { RateLimitedError, UpstreamRefusalError, VaultServerError } from '../errors.ts';
import { loggableError } from '../logger.ts';
import { invalid } from './errors.ts';
import { openAccount, type UpstreamAccount, type UpstreamDialect } from './upstream-accounts.ts';
import { currentUpstreamCaller } from './upstream-caller.ts';
import {
  type AccountGuard,
  createAccountGuard,
  createUpstreamBreaker,
  notSentReason,
  type UpstreamBreaker,
  upstreamPaceLimit,
} from './upstream-guard.ts';

/** Settings of the sessions. */
export interface UpstreamSessionOptions {
  /** The upstream's base URL. */
  readonly url: string;
  readonly db: Queryable;
  readonly box: SecretBox;
  readonly logger: Pick<Logger, 'warn' | 'error' | 'info'>;
  /** Upstream calls at once per account. Default 8. */
  readonly maxConcurrent?: number | undefined;
  /** Callers waiting for a place per account before one more is answered 503. Default 200. */
  readonly maxQueued?: number | undefined;
  /** Time allowed for one upstream attempt, in ms. Default 10 000. */
  readonly timeoutMs?: number | undefined;
  /** The fetch to use (tests). */
  readonly fetch?: typeof globalThis.fetch | undefined;
  /** The pace of each account's calls (`upstreamPace`); in memory at the default rate when absent. */
  readonly pace?: Limiter | undefined;
  /** The upstream's circuit breaker; one with the defaults when absent. */
  readonly breaker?: UpstreamBreaker | undefined;
  /** Told when TeamPass refused an account (401 or 403): what was kept of it must go. */
  readonly onRefused?: ((accountId: number) => void) | undefined;
}

/** What runs upstream calls. */
export interface UpstreamSessions {
  /**
   * Runs `work` with the account's client, within the account's bound; the client's failures are
   * mapped to the server's answers.
   */
  run<T>(accountId: number, work: (client: WireClient, account: UpstreamAccount) => Promise<T>): Promise<T>;
  /**
   * Drops the account's session (its credentials were registered again): the next call reads the
   * account anew and signs in with what was registered.
   */
  forget(accountId: number): void;
  /** Signs every session out. */
  close(): Promise<void>;
}

/**
 * The upstream could not answer (down, hung, answering wrongly, rate-limiting): the failures a
 * kept answer may stand in for (stale-if-error), never a refusal.
 */
export class UpstreamOutageError extends VaultServerError {
  override name = 'UpstreamOutageError';
}

/** Whether an error is an outage of the upstream, for which a kept answer may be served. */
export function isUpstreamOutage(error: unknown): boolean {
  return error instanceof UpstreamOutageError || (error instanceof RateLimitedError && error.status === 503);
}

/** Seconds a caller is told to wait when the upstream's limit or the queue is full and the upstream said nothing. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

/**
 * Creates the client of an account.
 *
 * @param url The upstream's base URL.
 * @param account The account with its secrets.
 * @param options Timeouts and fetch.
 * @returns The client.
 */
export function upstreamClient(
  url: string,
  account: {
    dialect: 'legacy' | 'teampass3' | 'auto';
    login: string;
    method: CredentialKind;
    secrets: UpstreamAccount['secrets'];
  },
  options: { timeoutMs?: number | undefined; fetch?: typeof globalThis.fetch | undefined } = {},
): WireClient {
  // A TeamPass 2 key acts for nobody in particular: the account has no login to pass.
  const auth = credentialsFrom(
    { ...account.secrets, login: account.method === 'api-key' ? undefined : account.login },
    account.method,
  );
  return createWireClient({
    baseUrl: url,
    auth,
    dialect: account.dialect,
    timeoutMs: options.timeoutMs ?? 10_000,
    fetch: options.fetch,
    // A server holds its callers while it waits: wait out one short 429, then answer 503.
    retry: { retries: 1, maxRetryAfterMs: 5_000, rateLimitRetries: 1 },
    teampass3: { concurrency: 4 },
  });
}

/**
 * Maps an upstream client's failure to the server's answer. Codes that describe the request
 * (not found, invalid, a duplicate label, unsupported, forbidden) pass through; the rest is the
 * upstream's or the server's problem, never the caller's key.
 *
 * @param error What the client threw.
 * @param accountName The account, for messages.
 * @returns The error to throw.
 */
export function upstreamError(error: unknown, accountName: string): unknown {
  if (!(error instanceof VaultError) || error instanceof VaultServerError) return error;
  switch (error.code) {
    case 'not_found':
    case 'invalid_request':
    case 'duplicate_label':
    case 'unsupported':
    case 'too_large':
    case 'forbidden':
      return new UpstreamRefusalError(error.code, `Upstream TeamPass: ${error.message}`, error.serverMessage);
    case 'unauthorized':
    case 'api_disabled':
      return new VaultServerError(
        'server',
        `The upstream TeamPass refused the credentials of account ${JSON.stringify(accountName)}; an operator must register them again (vaultline-server upstream update).`,
        502,
        'upstream',
      );
    case 'rate_limited':
      return new RateLimitedError(
        'The upstream TeamPass is rate-limiting this server; try again later.',
        Math.max(1, Math.ceil((error.retryAfterMs ?? DEFAULT_RETRY_AFTER_SECONDS * 1000) / 1000)),
        503,
      );
    case 'timeout':
      return new UpstreamOutageError(
        'server',
        'The upstream TeamPass did not answer in time.',
        503,
        'upstream',
      );
    case 'aborted':
      return new VaultServerError('server', 'The server is shutting down.', 503);
    default:
      return new UpstreamOutageError(
        'server',
        `The upstream TeamPass could not be reached or answered wrongly (${error.code}).`,
        502,
        'upstream',
      );
  }
}

interface Session {
  readonly account: UpstreamAccount;
  readonly client: WireClient;
  readonly guard: AccountGuard;
  /** Callers inside `run`: in flight or waiting for a place. */
  active: number;
}

/**
 * Creates the sessions of an instance.
 *
 * @param options The upstream, the database and secret box the accounts are read with, the bounds.
 * @returns The sessions.
 */
export function createUpstreamSessions(options: UpstreamSessionOptions): UpstreamSessions {
  const maxConcurrent = options.maxConcurrent ?? 8;
  const maxQueued = options.maxQueued ?? 200;
  const pace = options.pace ?? memoryTokenBucket(upstreamPaceLimit());
  const breaker = options.breaker ?? createUpstreamBreaker();
  const sessions = new Map<number, Promise<Session>>();
  /** Accounts registered for another TeamPass, logged once each. */
  const misdirected = new Set<number>();
  let closed = false;

  const sessionOf = (accountId: number): Promise<Session> => {
    let found = sessions.get(accountId);
    if (!found) {
      found = openAccount(options.db, options.box, accountId)
        .then((account) => {
          // Its credentials go only where they were verified: never to another TeamPass.
          if (account.url !== options.url.replace(/\/+$/, '')) {
            if (!misdirected.has(account.id)) {
              misdirected.add(account.id);
              options.logger.error(
                { account: account.name, registeredFor: account.url, upstream: options.url },
                'upstream account registered for another TeamPass; not used',
              );
            }
            throw new VaultServerError(
              'server',
              `The upstream account ${JSON.stringify(account.name)} was registered for another TeamPass; an operator must register it for this one.`,
              502,
            );
          }
          return account;
        })
        .then((account) => {
          const guard = createAccountGuard({
            accountId: account.id,
            accountName: account.name,
            db: options.db,
            breaker,
            pace,
            maxConcurrent,
            fetch: options.fetch,
          });
          return {
            account,
            guard,
            client: upstreamClient(options.url, account, { ...options, fetch: guard.fetch }),
            active: 0,
          };
        });
      // A failure to read the account is not kept: the next call reads it again.
      found.catch(() => sessions.delete(accountId));
      sessions.set(accountId, found);
    }
    return found;
  };

  /** The account's session, its holds read; a session whose credentials were registered anew is replaced. */
  const admitted = async (accountId: number): Promise<Session> => {
    const pending = sessionOf(accountId);
    let session = await pending;
    let stop = await session.guard.check();
    if (session.guard.replaced()) {
      // Registered again: the old client's credentials are not used any more.
      if (sessions.get(accountId) === pending) sessions.delete(accountId);
      session.client.dispose().catch(() => {});
      session = await sessionOf(accountId);
      stop = await session.guard.check();
    }
    if (stop) throw stop;
    return session;
  };

  return {
    async run(accountId, work) {
      if (closed) throw new VaultServerError('server', 'The server is shutting down.', 503);
      const session = await admitted(accountId);
      const { account, guard } = session;
      if (session.active >= maxConcurrent + maxQueued) {
        throw new RateLimitedError(
          'Too many requests are waiting for the upstream TeamPass; try again later.',
          DEFAULT_RETRY_AFTER_SECONDS,
          503,
        );
      }
      session.active++;
      try {
        return await withinDeadline(work(session.client, account));
      } catch (error) {
        // Not sent because of a hold (or the breaker): the caller is told that, at once.
        const held = notSentReason(error) ?? currentUpstreamCaller()?.notSent;
        if (held) throw held;
        const mapped = upstreamError(error, account.name);
        if (error instanceof VaultError && !(error instanceof VaultServerError)) {
          if (error.code === 'unauthorized' || error.code === 'api_disabled') {
            options.onRefused?.(account.id);
            if (guard.stopped() === undefined) {
              options.logger.error(
                { account: account.name, code: error.code },
                'upstream TeamPass refused the account credentials; suspended until they are registered again',
              );
              try {
                await guard.refuse();
              } catch (failure) {
                options.logger.error(
                  { account: account.name, err: loggableError(failure) },
                  'could not record the suspension of the account',
                );
              }
            }
            throw guard.stopped() ?? mapped;
          }
          if (error.code === 'forbidden') options.onRefused?.(account.id);
          else if (mapped instanceof VaultServerError && mapped.code === 'server') {
            // A hold that arose meanwhile (a 429, the breaker) says more than the failure it caused.
            const now = guard.stopped();
            if (now) throw now;
            options.logger.warn({ account: account.name, code: error.code }, 'upstream TeamPass failed');
          }
        }
        throw mapped;
      } finally {
        session.active--;
      }
    },
    forget(accountId) {
      const pending = sessions.get(accountId);
      sessions.delete(accountId);
      misdirected.delete(accountId);
      void pending?.then(
        (session) => session.client.dispose().catch(() => {}),
        () => {},
      );
    },
    async close() {
      closed = true;
      await pace.close().catch(() => {});
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(
        open.map(async (pending) => {
          try {
            await (await pending).client.dispose();
          } catch {
            // An upstream that is gone cannot sign out; its token expires on its own.
          }
        }),
      );
    },
  };
}

/**
 * Answers within the caller's deadline: when it passes first, 503 at once (an outage, so a kept
 * answer may stand in); the work's upstream exchanges are cancelled by the caller's signal.
 */
function withinDeadline<T>(work: Promise<T>): Promise<T> {
  const caller = currentUpstreamCaller();
  if (!caller) return work;
  const { signal, deadlineMs } = caller;
  return new Promise<T>((resolve, reject) => {
    const stop = () => {
      work.catch(() => {});
      reject(
        signal.reason instanceof Error && signal.reason.name === 'TimeoutError'
          ? new UpstreamOutageError(
              'server',
              `The upstream TeamPass did not answer within the server's deadline (${deadlineMs} ms).`,
              503,
              'upstream',
            )
          : new VaultServerError('aborted', 'The client went away.', 499),
      );
    };
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

/**
 * Verifies an account's credentials by signing in (TeamPass 3) or by one read (TeamPass 2), and
 * tells which API the upstream speaks. Nothing of the credentials is said in its errors.
 *
 * @param url The upstream's base URL.
 * @param account How it signs in, and its secrets.
 * @param options Timeouts and fetch.
 * @returns The upstream's dialect.
 */
export async function verifyUpstreamAccount(
  url: string,
  account: { login: string; method: CredentialKind; secrets: UpstreamAccount['secrets'] },
  options: { timeoutMs?: number | undefined; fetch?: typeof globalThis.fetch | undefined } = {},
): Promise<UpstreamDialect> {
  let client: WireClient | undefined;
  try {
    client = upstreamClient(url, { ...account, dialect: 'auto' }, options);
    const { dialect, credentials } = await client.capabilities();
    // What signing in needs decides what to verify; the dialect is kept with the account.
    if (credentials === 'password') {
      if (account.method === 'api-key')
        throw invalid(
          'This upstream is TeamPass 3: register a login (--login) with its password and API key, or --token.',
        );
      await client.identity();
    } else {
      if (account.method !== 'api-key')
        throw invalid(
          'This upstream speaks the legacy API (TeamPass 2): register its API key alone, without --login.',
        );
      await client.readFolders({ ids: [1] });
    }
    return dialect;
  } catch (error) {
    if (error instanceof VaultError && (error.code === 'unauthorized' || error.code === 'api_disabled'))
      throw invalid('The upstream TeamPass refused these credentials: nothing was stored.');
    if (
      error instanceof VaultError &&
      !(error instanceof VaultServerError) &&
      error.code !== 'invalid_request'
    )
      throw new VaultServerError(
        'server',
        `Could not verify the account against ${url}: ${error.code}.`,
        502,
      );
    throw error;
  } finally {
    await client?.dispose().catch(() => {});
  }
}
