/**
 * The spinner shown while waiting for the vault: yocto-spinner, on stderr, only on a terminal and
 * never with --json, so scripts and pipes see no control characters.
 *
 * @module
 */

import yoctoSpinner from 'yocto-spinner';

/** A running spinner. */
export interface Spinner {
  /** Stops and clears it. */
  stop(): void;
}

/**
 * Shows a spinner while a promise runs.
 *
 * @param text What is being waited for.
 * @param work The work.
 * @param options `json` turns it off.
 * @returns The work's result.
 */
export async function withSpinner<T>(
  text: string,
  work: () => Promise<T>,
  options: { json?: boolean | undefined } = {},
): Promise<T> {
  const show = process.stderr.isTTY === true && options.json !== true;
  const spinner = show ? yoctoSpinner({ text, stream: process.stderr }).start() : undefined;
  try {
    return await work();
  } finally {
    spinner?.stop();
  }
}
