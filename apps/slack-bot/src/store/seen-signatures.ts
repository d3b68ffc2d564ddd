import type { Database } from '@vaultline/store';

/** Remembers the request signatures of the last minutes, in the store shared by every instance. */
export interface SeenSignatures {
  /**
   * Notes a signature as seen.
   *
   * @param signature The `x-slack-signature` header.
   * @param keepMs How long it is kept (the accepted age of a request).
   * @returns True the first time, false when it was seen before (a replay).
   */
  claim(signature: string, keepMs: number): Promise<boolean>;
  /** Forgets the signatures whose time has passed. */
  sweep(): Promise<void>;
  /** Writes the copies not yet in the store (PGlite); call it before the store closes. */
  flush(): Promise<void>;
}

/** Options of {@link createSeenSignatures}. */
export interface SeenSignaturesOptions {
  /** The clock. */
  now?: (() => number) | undefined;
  /**
   * PGlite: resolves when requests stop arriving for a moment; the copies wait for it, so that
   * the embedded store (which runs on the bot's own thread) does not delay the acks of a burst.
   */
  quiet?: (() => Promise<void>) | undefined;
}

const CLAIM = `INSERT INTO seen_signatures (signature, expires_at) VALUES ($1, $2)
  ON CONFLICT (signature) DO UPDATE SET expires_at = EXCLUDED.expires_at
    WHERE seen_signatures.expires_at < $3
  RETURNING signature`;

/**
 * Creates the signature memory over the store. On PostgreSQL (several bot processes) the store
 * decides every claim. On PGlite one process owns the store, so memory decides, loaded from the
 * store at the first claim; the accepted signatures are copied to the store in batches behind the
 * answers: one statement for a burst, written as soon as requests pause (`quiet`), ahead of the
 * work that follows the acks (which waits for the same pause). The ack never waits for a
 * statement, the embedded store's work does not delay the other acks of a burst, and a restarted
 * bot still refuses what it saw before — except signatures acked in the last moment (until the
 * burst paused, 250 ms at most) before a crash.
 *
 * @param db The store.
 * @param options The clock, and what the copies wait for.
 * @returns It.
 */
export function createSeenSignatures(db: Database, options: SeenSignaturesOptions = {}): SeenSignatures {
  const now = options.now ?? Date.now;
  return db.kind === 'pglite'
    ? createOwnedSeenSignatures(db, now, options.quiet ?? (async () => {}))
    : createSharedSeenSignatures(db, now);
}

function createOwnedSeenSignatures(
  db: Database,
  now: () => number,
  quiet: () => Promise<void>,
): SeenSignatures {
  // Signature → when it may be accepted again. Bounded by the accepted age of a request.
  const seen = new Map<string, number>();
  // Accepted, not yet in the store.
  let copies: [signature: string, until: number][] = [];
  let scheduled = false;
  let writing: Promise<void> = Promise.resolve();
  let loaded: Promise<void> | undefined;
  const load = () =>
    (loaded ??= db
      .query<{ signature: string; expires_at: number }>(
        'SELECT signature, expires_at FROM seen_signatures WHERE expires_at >= $1',
        [now()],
      )
      .then((rows) => {
        for (const row of rows) seen.set(row.signature, Number(row.expires_at));
      }));
  const write = async () => {
    const batch = copies;
    copies = [];
    if (batch.length === 0) return;
    // One statement for the batch: $1 the signatures, $2 their expiries, $3 now.
    await db.query(
      `INSERT INTO seen_signatures (signature, expires_at)
         SELECT * FROM unnest($1::text[], $2::bigint[])
       ON CONFLICT (signature) DO UPDATE SET expires_at = EXCLUDED.expires_at
         WHERE seen_signatures.expires_at < $3`,
      [batch.map(([signature]) => signature), batch.map(([, until]) => until), now()],
    );
  };
  const flush = () => {
    // A failure loses only that copy (the next start's memory), never a refusal now.
    writing = writing.then(write).catch(() => {});
    return writing;
  };
  return {
    async claim(signature, keepMs) {
      await load();
      const at = now();
      const until = seen.get(signature);
      if (until !== undefined && until >= at) return false;
      seen.set(signature, at + keepMs);
      copies.push([signature, at + keepMs]);
      if (!scheduled) {
        scheduled = true;
        void quiet().then(() => {
          scheduled = false;
          return flush();
        });
      }
      return true;
    },
    async sweep() {
      const at = now();
      for (const [signature, until] of seen) if (until < at) seen.delete(signature);
      await db.query('DELETE FROM seen_signatures WHERE expires_at < $1', [at]);
    },
    flush,
  };
}

function createSharedSeenSignatures(db: Database, now: () => number): SeenSignatures {
  return {
    async claim(signature, keepMs) {
      const at = now();
      const rows = await db.query(CLAIM, [signature, at + keepMs, at]);
      return rows.length === 1;
    },
    async sweep() {
      await db.query('DELETE FROM seen_signatures WHERE expires_at < $1', [now()]);
    },
    flush: async () => {},
  };
}
