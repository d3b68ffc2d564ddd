import { setTimeout as sleep } from 'node:timers/promises';

/** Holds the work that follows acks back while more requests are still arriving. */
export interface AckFirst {
  /** Notes that a request arrived. */
  mark(): void;
  /** Resolves once no request has arrived for a moment (or after the longest allowed wait). */
  quiet(): Promise<void>;
}

/**
 * Creates the gate. In a burst of commands, every request's ack must go out within Slack's 3 s,
 * and Node serves one thing at a time: work started after the first acks would queue in front of
 * the later ones. The work waits until arrivals pause for `quietMs`, at most `maxDeferMs`.
 *
 * @param quietMs The pause that counts as quiet.
 * @param maxDeferMs The longest any work waits.
 * @param now The clock.
 * @returns The gate.
 */
export function createAckFirst(
  quietMs: number,
  maxDeferMs: number,
  now: () => number = performance.now.bind(performance),
): AckFirst {
  let last = Number.NEGATIVE_INFINITY;
  return {
    mark() {
      last = now();
    },
    async quiet() {
      const started = now();
      for (;;) {
        const idle = now() - last;
        const waited = now() - started;
        if (idle >= quietMs || waited >= maxDeferMs) return;
        await sleep(Math.min(quietMs - idle, maxDeferMs - waited));
      }
    },
  };
}
