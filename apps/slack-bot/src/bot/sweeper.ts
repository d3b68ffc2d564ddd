import type { AckFirst } from '../ack-first.ts';
import { SWEEP_INTERVAL_MS } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { sweepRequests } from '../requests/sweep.ts';
import { errorFields } from '../safe-error.ts';
import type { SeenSignatures } from '../store/seen-signatures.ts';

/** How often (ms) the signatures seen lately are swept of expired ones. */
const SIGNATURE_SWEEP_MS = 60_000;

/** The periodic work of an instance: due redactions, due requests, old signatures. */
export interface Sweeper {
  /** Starts sweeping every {@link SWEEP_INTERVAL_MS}, and once at once. */
  start(): void;
  /** Stops the timer (a sweep under way goes on). */
  stop(): void;
  /** Resolves once no sweep is under way. */
  idle(): Promise<void>;
}

/**
 * Creates the sweeper. One sweep at a time; its statements run after a burst of requests, not
 * between its acks (on PGlite the store runs on the bot's own thread).
 *
 * @param deps The bot's parts.
 * @param seen The signatures seen lately.
 * @param ackFirst The ack gate.
 * @returns The sweeper, not started.
 */
export function createSweeper(deps: Deps, seen: SeenSignatures, ackFirst: AckFirst): Sweeper {
  let sweeping = false;
  let lastSignatureSweep = 0;
  let timer: NodeJS.Timeout | undefined;
  const sweep = async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      await ackFirst.quiet();
      deps.accounts.sweep();
      await deps.redactions.sweep();
      await sweepRequests(deps);
      if (Date.now() - lastSignatureSweep > SIGNATURE_SWEEP_MS) {
        lastSignatureSweep = Date.now();
        await seen.sweep();
      }
    } catch (error) {
      deps.logger.warn(errorFields(error, deps.redact), 'sweep failed');
    } finally {
      sweeping = false;
    }
  };
  return {
    start() {
      timer = setInterval(() => void sweep(), SWEEP_INTERVAL_MS);
      timer.unref();
      void sweep();
    },
    stop() {
      if (timer) clearInterval(timer);
    },
    async idle() {
      while (sweeping) await new Promise((resolve) => setTimeout(resolve, 10));
    },
  };
}
