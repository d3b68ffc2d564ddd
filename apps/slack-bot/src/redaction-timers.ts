/** Runs the "hide the password again" step of each reveal after a delay, or at once on shutdown. */
export interface RedactionTimers {
  /**
   * Schedules a redaction.
   *
   * @param run Replaces the revealed message by its redacted version.
   * @param delayMs The delay.
   */
  schedule(run: () => Promise<void>, delayMs: number): void;
  /** Runs every pending redaction now: used when the bot stops, so no password stays on screen. */
  flush(): Promise<void>;
  /** How many are pending. */
  readonly pending: number;
}

/**
 * Creates the redaction timers.
 *
 * @param onError Called when a redaction fails.
 * @returns The timers.
 */
export function createRedactionTimers(onError: (error: unknown) => void): RedactionTimers {
  const timers = new Map<NodeJS.Timeout, () => Promise<void>>();
  const runSafely = async (run: () => Promise<void>) => {
    try {
      await run();
    } catch (error) {
      onError(error);
    }
  };
  return {
    schedule(run, delayMs) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        void runSafely(run);
      }, delayMs);
      timers.set(timer, run);
    },
    async flush() {
      const runs = [...timers.entries()];
      timers.clear();
      for (const [timer] of runs) clearTimeout(timer);
      await Promise.all(runs.map(([, run]) => runSafely(run)));
    },
    get pending() {
      return timers.size;
    },
  };
}
