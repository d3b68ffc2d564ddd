/** A small map whose entries expire: keeps hot lookups (keys, rights, folder tree) off the database. */
export class TtlCache<K, V> {
  readonly #entries = new Map<K, { value: V; expires: number }>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;

  constructor(ttlMs: number, maxEntries = 10_000) {
    this.#ttlMs = ttlMs;
    this.#maxEntries = maxEntries;
  }

  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires <= Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V): void {
    if (this.#ttlMs <= 0) return;
    if (this.#entries.size >= this.#maxEntries) this.#entries.clear();
    this.#entries.set(key, { value, expires: Date.now() + this.#ttlMs });
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
