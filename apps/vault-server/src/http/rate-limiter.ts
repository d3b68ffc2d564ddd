/** Counts events per key in a fixed window; used for requests and failed keys per client address. */
export class RateLimiter {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #counts = new Map<string, { count: number; resetAt: number }>();

  constructor(limit: number, windowMs: number) {
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  /** Counts one event; tells whether it is still within the limit. */
  hit(key: string): boolean {
    const now = Date.now();
    let entry = this.#counts.get(key);
    if (!entry || entry.resetAt <= now) {
      if (this.#counts.size > 100_000) this.#sweep(now);
      entry = { count: 0, resetAt: now + this.#windowMs };
      this.#counts.set(key, entry);
    }
    entry.count++;
    return entry.count <= this.#limit;
  }

  /** Tells whether the key is over the limit, without counting. */
  blocked(key: string): boolean {
    const entry = this.#counts.get(key);
    return entry !== undefined && entry.resetAt > Date.now() && entry.count >= this.#limit;
  }

  /** Seconds until the key's window ends. */
  retryAfter(key: string): number {
    const entry = this.#counts.get(key);
    return entry ? Math.max(1, Math.ceil((entry.resetAt - Date.now()) / 1000)) : 1;
  }

  #sweep(now: number) {
    for (const [key, entry] of this.#counts) if (entry.resetAt <= now) this.#counts.delete(key);
  }
}
