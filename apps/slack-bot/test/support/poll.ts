/** What {@link eventually} is told beyond the probe. */
export interface PollOptions {
  /** Milliseconds between two tries; 20 by default. */
  every?: number;
  /** What did not arrive, for the error; "nothing" by default. */
  what?: string;
}

/**
 * Asks a probe again and again until it answers something other than undefined or false.
 *
 * @param probe What to ask (it may be async).
 * @param ms How long to try at most; 10 s by default.
 * @param options The pause between tries, and the words of the error.
 * @returns The first answer.
 * @throws {Error} When nothing came within `ms`.
 */
export async function eventually<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 10_000,
  { every = 20, what = 'nothing' }: PollOptions = {},
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() - started > ms) throw new Error(`${what} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}
