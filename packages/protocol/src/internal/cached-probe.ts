/**
 * The one cached probe of the core: a question asked of a server once (the dialect detection, the
 * server's identification), its answer kept. Concurrent callers share one request; a conclusive
 * answer is kept until `refresh`; an inconclusive one (no answer, a 503) is used for a while, then
 * asked again, so that one failed request does not poison the cache. Internal: exported by no entry.
 *
 * @module
 */

/** Options of {@link createCachedProbe}. */
export interface CachedProbeOptions<T> {
  /** Asks the server; never throws (a failure is an inconclusive answer). */
  ask: () => Promise<T>;
  /** Whether an answer is kept for good. */
  conclusive: (answer: T) => boolean;
  /** How long an inconclusive answer is used before asking again, in ms. Default 30 000. */
  retryAfterMs?: number | undefined;
  /** The clock, for tests. */
  now?: (() => number) | undefined;
  /** A conclusive answer known beforehand (stored with the connection): nothing is asked for it. */
  known?: T | undefined;
}

/** A cached answer. */
export interface CachedProbe<T> {
  /**
   * The answer: asks on the first call (concurrent callers share the request), then answers from
   * the cache while it holds.
   *
   * @param refresh Ask again, whatever the cache holds.
   */
  get(refresh?: boolean): Promise<T>;
  /** The answer when cached and still fresh, without waiting. */
  known(): T | undefined;
  /** Changes the cached answer in place (what a later call learned), keeping its freshness. */
  update(change: (answer: T) => T): void;
}

/**
 * Creates a cached probe.
 *
 * @param options The question, what makes an answer conclusive, and for how long the others hold.
 * @returns The probe.
 */
export function createCachedProbe<T>(options: CachedProbeOptions<T>): CachedProbe<T> {
  const retryAfterMs = options.retryAfterMs ?? 30_000;
  const now = options.now ?? Date.now;
  let current: T | undefined = options.known;
  let expiresAt = Number.POSITIVE_INFINITY;
  let pending: Promise<T> | undefined;

  function known(): T | undefined {
    // Asked before every call: no clock read once the answer is conclusive.
    if (current === undefined || expiresAt === Number.POSITIVE_INFINITY) return current;
    return now() < expiresAt ? current : undefined;
  }

  return {
    get(refresh = false) {
      const cached = refresh ? undefined : known();
      if (cached !== undefined) return Promise.resolve(cached);
      pending ??= options
        .ask()
        .then((answer) => {
          current = answer;
          expiresAt = options.conclusive(answer) ? Number.POSITIVE_INFINITY : now() + retryAfterMs;
          return answer;
        })
        .finally(() => {
          pending = undefined;
        });
      return pending;
    },
    known,
    update(change) {
      if (current !== undefined) current = change(current);
    },
  };
}
