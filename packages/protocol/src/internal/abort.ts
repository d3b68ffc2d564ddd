/**
 * Waiting with a caller's abort signal: the one abortable sleep and the one "wait for a shared
 * promise unless my call is cancelled" of the core.
 *
 * @module
 */
import { VaultError } from '../errors.ts';

/**
 * Waits `ms` milliseconds, or less when the signal fires (it resolves either way: the caller's
 * next step sees the abort).
 *
 * @param ms How long to wait.
 * @param signal Ends the wait early.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Waits for a promise that other callers share (a sign-in, a detection), or rejects with `aborted`
 * when this caller's signal fires first; the shared work itself goes on for the others.
 *
 * @param promise The shared work.
 * @param signal This caller's signal.
 * @returns What the shared work gives.
 * @throws {VaultError} `aborted` when the signal fires first.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(cancelled());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function cancelled(): VaultError {
  return new VaultError('aborted', 'The call was cancelled.');
}
