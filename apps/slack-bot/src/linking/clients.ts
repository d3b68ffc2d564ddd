import { type AccessChecker, secretsOf, type VaultClient } from '@vaultline/protocol';
import type { ItemSearch } from '../search.ts';
import type { SecretRegistry } from '../secret-registry.ts';
import type { LinkedAccount } from './links.ts';

/** A linked account's client, with its own session, and what the bot reads through it. */
export interface LinkedSession {
  client: VaultClient;
  access: AccessChecker;
  search: ItemSearch;
}

/** A session lent to one piece of work: give it back with `release()`. */
export interface Lease {
  readonly session: LinkedSession;
  release(): void;
}

/** The linked accounts' clients this instance keeps: bounded, idle ones let go. */
export interface LinkedClients {
  /**
   * Lends the client of a link, creating it when there is none (or only one of an earlier link of
   * the same person, which is let go).
   *
   * @param link The link.
   * @returns The lease.
   */
  lease(link: LinkedAccount): Lease;
  /** Lets a person's client go (their link was removed, replaced or refused), once its work is done. */
  retire(slackUser: string): void;
  /** Lets go the clients unused for longer than the idle time. */
  sweep(): void;
  /** Lets every client go at once, keeping their tokens (for the next start). */
  close(): Promise<void>;
  /** How many clients are kept. */
  readonly size: number;
}

/** Options of {@link createLinkedClients}. */
export interface LinkedClientsOptions {
  /** Makes the session of a link: its client (with the store as its token cache), checker, search. */
  make(link: LinkedAccount): LinkedSession;
  /** Holds the link's credentials for the logger's redaction while its client lives. */
  secrets: SecretRegistry;
  /** The most clients kept. */
  max: number;
  /** How long (ms) an unused client is kept. */
  idleMs: number;
  /** Told when a client could not be disposed. */
  onError(error: unknown): void;
  /** The clock. */
  now?: () => number;
}

interface Entry {
  slackUser: string;
  version: string;
  session: LinkedSession;
  leases: number;
  lastUsed: number;
  retired: boolean;
  disposed: boolean;
}

/**
 * Creates the clients of linked accounts. Each person's client signs in once per token lifetime
 * (the token kept sealed in the store, so a restart or another instance starts from it); a client
 * is let go when it is the least recently used beyond `max`, unused for `idleMs`, or its link
 * changes, and disposed once no work holds it (without signing out: its token stays usable).
 *
 * @param options How to make a session, the bounds, the secret registry.
 * @returns The clients.
 */
export function createLinkedClients(options: LinkedClientsOptions): LinkedClients {
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  /** Every client not disposed yet, retired ones still at work included. */
  const live = new Set<Entry>();
  const disposals = new Set<Promise<void>>();
  const secretName = (entry: Pick<Entry, 'slackUser' | 'version'>) =>
    `linked:${entry.slackUser}:${entry.version}`;

  const dispose = (entry: Entry) => {
    if (entry.disposed) return;
    entry.disposed = true;
    live.delete(entry);
    const disposal = entry.session.client
      .dispose({ signOut: false })
      .catch(options.onError)
      .finally(() => {
        options.secrets.release(secretName(entry));
        disposals.delete(disposal);
      });
    disposals.add(disposal);
  };
  const retire = (entry: Entry) => {
    if (entries.get(entry.slackUser) === entry) entries.delete(entry.slackUser);
    if (entry.retired) return;
    entry.retired = true;
    if (entry.leases === 0) dispose(entry);
  };
  const evict = () => {
    for (const entry of entries.values()) {
      if (entries.size <= options.max) return;
      if (entry.leases === 0) retire(entry);
    }
  };

  return {
    lease(link) {
      let entry = entries.get(link.slackUser);
      if (entry && entry.version !== link.version) {
        retire(entry);
        entry = undefined;
      }
      if (entry) entries.delete(link.slackUser);
      else {
        options.secrets.hold(
          secretName({ slackUser: link.slackUser, version: link.version }),
          secretsOf(link.credentials),
        );
        entry = {
          slackUser: link.slackUser,
          version: link.version,
          session: options.make(link),
          leases: 0,
          lastUsed: now(),
          retired: false,
          disposed: false,
        };
        live.add(entry);
      }
      // Most recently used last: the map's order is the eviction order.
      entries.set(link.slackUser, entry);
      entry.leases += 1;
      entry.lastUsed = now();
      evict();
      const leased = entry;
      let released = false;
      return {
        session: leased.session,
        release() {
          if (released) return;
          released = true;
          leased.leases -= 1;
          leased.lastUsed = now();
          if (leased.retired && leased.leases === 0) dispose(leased);
        },
      };
    },
    retire(slackUser) {
      const entry = entries.get(slackUser);
      if (entry) retire(entry);
    },
    sweep() {
      const limit = now() - options.idleMs;
      for (const entry of [...entries.values()])
        if (entry.leases === 0 && entry.lastUsed <= limit) retire(entry);
    },
    async close() {
      entries.clear();
      for (const entry of [...live]) {
        entry.retired = true;
        dispose(entry);
      }
      await Promise.allSettled([...disposals]);
    },
    get size() {
      return entries.size;
    },
  };
}
