import { setTimeout as sleep } from 'node:timers/promises';

/** Holds the work that follows acks back while more requests are still arriving or unanswered. */
export interface AckFirst {
  /** Notes that a request arrived. */
  mark(): void;
  /**
   * Notes that a request arrived and is not answered yet; the work waits until it is.
   *
   * @returns Call it once the request's answer is written.
   */
  open(): () => void;
  /**
   * Resolves once no request has arrived for a moment and none is waiting for its answer (or
   * after the longest allowed wait).
   */
  quiet(): Promise<void>;
}

/**
 * Creates the gate. In a burst of commands, every request's ack must go out within Slack's 3 s,
 * and Node serves one thing at a time: work started after the first acks would queue in front of
 * the later ones. The work waits until arrivals pause for `quietMs` and every request that arrived
 * has its answer written, at most `maxDeferMs`.
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
  let unanswered = 0;
  // Resolved when the last unanswered request is answered.
  let drained: { promise: Promise<void>; resolve: () => void } | undefined;
  const mark = () => {
    last = now();
  };
  return {
    mark,
    open() {
      mark();
      unanswered += 1;
      let closed = false;
      return () => {
        if (closed) return;
        closed = true;
        unanswered -= 1;
        if (unanswered === 0 && drained) {
          drained.resolve();
          drained = undefined;
        }
      };
    },
    async quiet() {
      const started = now();
      for (;;) {
        const idle = now() - last;
        const waited = now() - started;
        if (waited >= maxDeferMs || (unanswered === 0 && idle >= quietMs)) return;
        if (unanswered > 0) {
          drained ??= Promise.withResolvers<void>();
          const timeout = new AbortController();
          await Promise.race([
            drained.promise,
            sleep(maxDeferMs - waited, undefined, { signal: timeout.signal }).catch(() => {}),
          ]);
          timeout.abort();
        } else await sleep(Math.min(quietMs - idle, maxDeferMs - waited));
      }
    },
  };
}
