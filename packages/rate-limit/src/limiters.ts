import { LRUCache } from 'lru-cache';
import { storageKey } from './keys.ts';
import {
  ALLOWED,
  type Decision,
  type ExactCounter,
  type Limiter,
  positiveInteger,
  refused,
  type SharedCounter,
} from './limiter.ts';

/** The default pause between two batches of a write-behind limiter. */
export const DEFAULT_FLUSH_INTERVAL_MS = 100;
/** The default number of keys a limiter keeps in memory. */
export const DEFAULT_MAX_KEYS = 10_000;
/** The default longest wait for a key's shared count on its first hit. */
export const DEFAULT_LOAD_TIMEOUT_MS = 1_000;

/** When a write-behind limiter could not reach its store. */
export type LimiterErrorPhase = 'load' | 'flush';

/** Options of {@link memoryLimiter}. */
export interface MemoryLimiterOptions {
  /** Hits allowed per key and window. */
  points: number;
  /** The window, in seconds. */
  durationSeconds: number;
  /** Keys kept (least recently used go first); 10 000 by default. */
  maxKeys?: number | undefined;
  /** The clock (epoch ms), for tests. */
  now?: (() => number) | undefined;
}

/** Options of {@link writeBehindLimiter}. */
export interface WriteBehindLimiterOptions {
  /** The counter every instance shares (e.g. {@link postgresCounter}). */
  shared: SharedCounter;
  /** Hits allowed per key and window; the shared counter's by default. */
  points?: number | undefined;
  /** The window in seconds; must be the shared counter's (its rows expire with it). */
  durationSeconds?: number | undefined;
  /** The pause (ms) between a hit and the batch that carries it to the store; 100 by default. */
  flushIntervalMs?: number | undefined;
  /** Keys kept in memory (least recently used go first); 10 000 by default. */
  maxKeys?: number | undefined;
  /** The longest a first hit waits for the key's shared count before deciding without it; 1 s by default. */
  loadTimeoutMs?: number | undefined;
  /** Called when the store could not be read or written (for logging); hits are decided anyway. */
  onError?: ((error: unknown, phase: LimiterErrorPhase) => void) | undefined;
  /** The clock (epoch ms), for tests. */
  now?: (() => number) | undefined;
}

/**
 * A limiter whose every hit goes to the counter (one statement each): for rare events where
 * exactness across instances and restarts matters more than a statement (failed keys, reveals).
 * A store error is thrown to the caller, who decides whether to refuse.
 *
 * @param counter The counter (e.g. {@link postgresCounter}'s).
 * @param points Its points; given only to check them against the counter's.
 * @returns The limiter.
 */
export function exactLimiter(counter: ExactCounter, points: number = counter.points): Limiter {
  if (points !== counter.points)
    throw new RangeError(`points (${points}) differ from the counter's (${counter.points})`);
  return {
    points,
    async hit(key) {
      try {
        await counter.consume(storageKey(key), 1);
        return ALLOWED;
      } catch (rejection) {
        // rate-limiter-flexible rejects with a RateLimiterRes when the limit is reached.
        if (!(rejection instanceof Error) && isLimiterRes(rejection)) return refused(rejection.msBeforeNext);
        throw rejection;
      }
    },
    flush: async () => {},
    close: async () => {},
  };
}

function isLimiterRes(value: unknown): value is { msBeforeNext: number } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { msBeforeNext?: unknown }).msBeforeNext === 'number'
  );
}

/**
 * A limiter in this process's memory only: for one instance, tests, or a limit that need not
 * survive a restart. Bounded: `maxKeys` keys, each forgotten a window after it was last counted.
 *
 * @param options The limit.
 * @returns The limiter.
 */
export function memoryLimiter(options: MemoryLimiterOptions): Limiter {
  return createWindowLimiter({
    points: positiveInteger('points', options.points),
    durationMs: positiveInteger('durationSeconds', options.durationSeconds) * 1000,
    maxKeys: positiveInteger('maxKeys', options.maxKeys ?? DEFAULT_MAX_KEYS),
    now: options.now ?? Date.now,
    shared: undefined,
    flushIntervalMs: DEFAULT_FLUSH_INTERVAL_MS,
    loadTimeoutMs: DEFAULT_LOAD_TIMEOUT_MS,
    onError: () => {},
  });
}

/**
 * A limiter that decides in memory and shares its counts through a store, written behind:
 *
 * - a hit never waits for the store, except the first hit of a key this process does not know
 *   (or has not counted for a whole window), which reads the key's shared count once
 *   (`shared.get`, at most `loadTimeoutMs`);
 * - allowed hits are added to the shared counter in batches, `flushIntervalMs` after the first
 *   hit of the batch: one `penalty(key, n)` per key, whose answer (the shared count, every
 *   instance's hits included) becomes the key's new base;
 * - so the shared limit is approximate: an instance does not see the hits other instances made
 *   since its key's last batch (or load). Once the shared count has reached the limit, each instance
 *   may still allow the hits of one batch before its batch's answer tells it so; within one process
 *   the limit is exact;
 * - a store that fails (or is down) never fails a hit: the pending counts are kept for the next
 *   batch, decisions go on in memory, and `onError` is told;
 * - memory is bounded: `maxKeys` keys, each forgotten a window after it was last counted.
 *
 * The timer is `unref`ed; call {@link Limiter.close} on shutdown to write what is pending.
 *
 * @param options The shared counter, the batch interval and the bounds.
 * @returns The limiter.
 */
export function writeBehindLimiter(options: WriteBehindLimiterOptions): Limiter {
  const { shared } = options;
  const durationSeconds = options.durationSeconds ?? shared.duration;
  if (durationSeconds !== shared.duration)
    throw new RangeError(
      `durationSeconds (${durationSeconds}) differs from the shared counter's (${shared.duration})`,
    );
  return createWindowLimiter({
    points: positiveInteger('points', options.points ?? shared.points),
    durationMs: positiveInteger('durationSeconds', durationSeconds) * 1000,
    maxKeys: positiveInteger('maxKeys', options.maxKeys ?? DEFAULT_MAX_KEYS),
    now: options.now ?? Date.now,
    shared,
    flushIntervalMs: positiveInteger('flushIntervalMs', options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS),
    loadTimeoutMs: positiveInteger('loadTimeoutMs', options.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS),
    onError: options.onError ?? (() => {}),
  });
}

/** One key's count. */
interface Entry {
  /** The shared count as last heard (load or batch answer), this process's sent hits included. */
  base: number;
  /** Hits allowed here and not yet sent. */
  pending: number;
  /** Hits of the batch being written now. */
  inFlight: number;
  /** When the key's window ends (epoch ms). */
  resetAt: number;
  /** The first hit's read of the shared count, while it runs. */
  loading: Promise<void> | undefined;
}

interface WindowLimiterOptions {
  points: number;
  durationMs: number;
  maxKeys: number;
  now: () => number;
  shared: SharedCounter | undefined;
  flushIntervalMs: number;
  loadTimeoutMs: number;
  onError: (error: unknown, phase: LimiterErrorPhase) => void;
}

function createWindowLimiter(options: WindowLimiterOptions): Limiter {
  const { points, durationMs, maxKeys, now, shared, flushIntervalMs, loadTimeoutMs, onError } = options;
  const entries = new LRUCache<string, Entry>({ max: maxKeys, ttl: durationMs, updateAgeOnGet: false });
  // Keys with hits not yet written, kept even when the cache has let them go.
  const dirty = new Map<string, Entry>();
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();
  let closed = false;

  const report = (error: unknown, phase: LimiterErrorPhase) => {
    try {
      onError(error, phase);
    } catch {
      // A logging callback that throws must not turn into a failed hit.
    }
  };

  const load = async (key: string, entry: Entry, counter: SharedCounter) => {
    let timeout: NodeJS.Timeout | undefined;
    try {
      const answer = await Promise.race([
        counter.get(key),
        new Promise<never>((_, reject) => {
          timeout = setTimeout(
            () => reject(new Error(`the shared count was not read within ${loadTimeoutMs} ms`)),
            loadTimeoutMs,
          );
          timeout.unref();
        }),
      ]);
      if (answer) {
        entry.base = Math.max(entry.base, answer.consumedPoints);
        if (answer.msBeforeNext >= 0) entry.resetAt = now() + answer.msBeforeNext;
      }
    } catch (error) {
      report(error, 'load');
    } finally {
      clearTimeout(timeout);
      entry.loading = undefined;
    }
  };

  const schedule = () => {
    if (timer || closed) return;
    timer = setTimeout(() => {
      timer = undefined;
      void flush();
    }, flushIntervalMs);
    timer.unref();
  };

  const writeBatch = async (counter: SharedCounter) => {
    const batch = [...dirty];
    dirty.clear();
    const failures: unknown[] = [];
    await Promise.all(
      batch.map(async ([key, entry]) => {
        const hits = entry.pending;
        if (hits === 0) return;
        entry.pending = 0;
        entry.inFlight = hits;
        try {
          const answer = await counter.penalty(key, hits);
          entry.base = answer.consumedPoints;
          if (answer.msBeforeNext >= 0) entry.resetAt = now() + answer.msBeforeNext;
          // Counted again: the cache keeps it for a window from now.
          if (entries.has(key)) entries.set(key, entry);
        } catch (error) {
          // Kept for the next batch; until then it still counts here.
          entry.pending += hits;
          dirty.set(key, entry);
          failures.push(error);
        } finally {
          entry.inFlight = 0;
        }
      }),
    );
    if (failures.length > 0) {
      report(failures[0], 'flush');
      // A long outage must not grow memory without bound: the oldest pending counts go first.
      for (const key of dirty.keys()) {
        if (dirty.size <= maxKeys) break;
        dirty.delete(key);
      }
      if (dirty.size > 0) schedule();
    }
  };

  const flush = (): Promise<void> => {
    if (timer) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (!shared) return Promise.resolve();
    // One batch at a time: at most one write per key is in flight.
    flushing = flushing.then(() => writeBatch(shared));
    return flushing;
  };

  return {
    points,
    async hit(rawKey): Promise<Decision> {
      const key = storageKey(rawKey);
      let entry = entries.get(key);
      if (!entry) {
        entry = dirty.get(key);
        if (!entry) {
          entry = { base: 0, pending: 0, inFlight: 0, resetAt: now() + durationMs, loading: undefined };
          if (shared) entry.loading = load(key, entry, shared);
        }
        entries.set(key, entry);
      }
      if (entry.loading) await entry.loading;
      const at = now();
      if (at >= entry.resetAt) {
        // A new window: what was counted (and not yet written) belonged to the one that ended.
        entry.base = 0;
        entry.pending = 0;
        entry.resetAt = at + durationMs;
        entries.set(key, entry);
      }
      if (entry.base + entry.pending + entry.inFlight >= points) return refused(entry.resetAt - at);
      entry.pending += 1;
      if (shared) {
        dirty.set(key, entry);
        schedule();
      }
      return ALLOWED;
    },
    flush,
    async close() {
      closed = true;
      await flush();
    },
  };
}
