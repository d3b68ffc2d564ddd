/**
 * The caller an upstream call is made for: its deadline and whether it is still there. Set once
 * per request by the operation's runner in upstream mode (an `AsyncLocalStorage`, so no store
 * operation carries it in its signature) and read below the scope layer by the account's guarded
 * client: every upstream exchange made for the request is cancelled when the client goes away or
 * the deadline passes, queued or in flight.
 *
 * @module
 */

import { AsyncLocalStorage } from 'node:async_hooks';

/** The caller of the upstream calls being made. */
export interface UpstreamCaller {
  /** Aborted when the client went away (reason `AbortError`) or the deadline passed (`TimeoutError`). */
  readonly signal: AbortSignal;
  /** When the caller must have its answer, in ms since the epoch. */
  readonly deadline: number;
  /** The deadline's length, for messages. */
  readonly deadlineMs: number;
  /** When its request was taken in (epoch ms): an upstream answer that came later is one it may share. */
  readonly startedAt: number;
  /**
   * Why an exchange for this caller was not sent (a hold, the pace, the breaker): what the caller
   * is told, as the client's error carries only words.
   */
  notSent?: Error | undefined;
}

const callers = new AsyncLocalStorage<UpstreamCaller>();

/**
 * Runs a request's work as an upstream caller.
 *
 * @param departed Aborted when the client goes away, when known.
 * @param deadlineMs The time the caller is given.
 * @param work The request's work.
 * @param startedAt When the request was taken in; now by default.
 * @returns What the work returns.
 */
export function asUpstreamCaller<T>(
  departed: AbortSignal | undefined,
  deadlineMs: number,
  work: () => Promise<T>,
  startedAt: number = Date.now(),
): Promise<T> {
  const timeout = AbortSignal.timeout(deadlineMs);
  const signal = departed ? AbortSignal.any([departed, timeout]) : timeout;
  return callers.run(
    { signal, deadline: Date.now() + deadlineMs, deadlineMs, startedAt, notSent: undefined },
    work,
  );
}

/** The caller of the current request, when there is one. */
export function currentUpstreamCaller(): UpstreamCaller | undefined {
  return callers.getStore();
}
