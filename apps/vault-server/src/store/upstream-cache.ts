/**
 * The read cache of upstream mode, off by default: answers to reads kept per account and key
 * scope for a short time, sealed in memory (AES-256-GCM under a key of this process only, so a
 * heap dump holds no item value in clear), all of an account's dropped on every write through this
 * instance; and, opt-in, an answer up to a maximum age served while the upstream is down (an
 * outage, never a refusal: a right revoked upstream must win).
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { createSecretBox } from '../crypto/secret-box.ts';
import { isUpstreamOutage } from './upstream-sessions.ts';

/** The most answers kept. */
const MAX_ENTRIES = 5_000;

/** Settings of the cache. */
export interface UpstreamCacheOptions {
  /** How long an answer is served without asking the upstream, in ms; 0 turns the cache off. */
  readonly ttlMs: number;
  /** How old an answer may be and still stand in for an upstream outage, in ms; 0 never. */
  readonly staleIfErrorMs: number;
  /** The clock. */
  readonly now?: (() => number) | undefined;
}

/** The cache. */
export interface UpstreamCache {
  /**
   * Answers a read: from the cache while fresh, else from `read` (kept); when `read` fails with an
   * outage, from an answer no older than the stale limit.
   *
   * @param accountId The account it is read as.
   * @param key The key's scope and the read (operation and parameters).
   * @param read Asks the upstream.
   */
  read<T>(accountId: number, key: string, read: () => Promise<T>): Promise<T>;
  /** Drops every answer of an account (after a write through this instance). */
  dropAccount(accountId: number): void;
}

interface Entry {
  readonly at: number;
  readonly sealed: Buffer;
}

/**
 * Creates the cache; with both times 0, one that keeps nothing.
 *
 * @param options The times.
 * @returns The cache.
 */
export function createUpstreamCache(options: UpstreamCacheOptions): UpstreamCache {
  const { ttlMs, staleIfErrorMs } = options;
  const now = options.now ?? Date.now;
  if (ttlMs <= 0 && staleIfErrorMs <= 0) {
    return { read: (_account, _key, read) => read(), dropAccount: () => {} };
  }
  const box = createSecretBox(randomBytes(32));
  const entries = new LRUCache<string, Entry>({ max: MAX_ENTRIES, ttl: Math.max(ttlMs, staleIfErrorMs) });
  /** Counts writes per account: a read that started before a write must not fill the cache. */
  const generations = new Map<number, number>();
  /** Reads on their way: callers asking the same meanwhile wait for the one read. */
  const pending = new Map<string, Promise<unknown>>();
  const open = <T>(entry: Entry): T => JSON.parse(box.openText(entry.sealed)) as T;
  return {
    async read<T>(accountId: number, key: string, read: () => Promise<T>): Promise<T> {
      const id = `${accountId}\u0000${key}`;
      const kept = entries.get(id);
      if (kept && now() - kept.at < ttlMs) return open(kept);
      let fetching = pending.get(id) as Promise<T> | undefined;
      if (fetching === undefined) {
        const generation = generations.get(accountId) ?? 0;
        const started = read().then((fresh) => {
          if ((generations.get(accountId) ?? 0) === generation)
            entries.set(id, { at: now(), sealed: box.sealText(JSON.stringify(fresh)) });
          return fresh;
        });
        fetching = started;
        pending.set(id, started);
        const done = () => {
          if (pending.get(id) === started) pending.delete(id);
        };
        started.then(done, done);
      }
      try {
        return await fetching;
      } catch (error) {
        const stale = entries.get(id);
        if (stale && isUpstreamOutage(error) && now() - stale.at < staleIfErrorMs) return open(stale);
        throw error;
      }
    },
    dropAccount(accountId) {
      generations.set(accountId, (generations.get(accountId) ?? 0) + 1);
      const prefix = `${accountId}\u0000`;
      for (const id of [...entries.keys()]) if (id.startsWith(prefix)) entries.delete(id);
      // A read that started before the write is not joined by the callers after it.
      for (const id of [...pending.keys()]) if (id.startsWith(prefix)) pending.delete(id);
    },
  };
}
