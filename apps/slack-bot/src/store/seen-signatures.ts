import type { Database } from './database.ts';

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
}

const CLAIM = `INSERT INTO seen_signatures (signature, expires_at) VALUES ($1, $2)
  ON CONFLICT (signature) DO UPDATE SET expires_at = EXCLUDED.expires_at
    WHERE seen_signatures.expires_at < $3
  RETURNING signature`;

/**
 * Creates the signature memory over the store. On PostgreSQL (several bot processes) the store
 * decides every claim. On PGlite one process owns the store, so memory decides, loaded from the
 * store at the first claim, and each claim is copied to the store behind the answer: the ack no
 * longer waits for a statement, and a restarted bot still refuses what it saw before.
 *
 * @param db The store.
 * @param now The clock.
 * @returns It.
 */
export function createSeenSignatures(db: Database, now: () => number = Date.now): SeenSignatures {
  return db.kind === 'pglite' ? createOwnedSeenSignatures(db, now) : createSharedSeenSignatures(db, now);
}

function createOwnedSeenSignatures(db: Database, now: () => number): SeenSignatures {
  // Signature → when it may be accepted again. Bounded by the accepted age of a request.
  const seen = new Map<string, number>();
  let loaded: Promise<void> | undefined;
  const load = () =>
    (loaded ??= db
      .query<{ signature: string; expires_at: number }>(
        'SELECT signature, expires_at FROM seen_signatures WHERE expires_at >= $1',
        [now()],
      )
      .then(({ rows }) => {
        for (const row of rows) seen.set(row.signature, Number(row.expires_at));
      }));
  return {
    async claim(signature, keepMs) {
      await load();
      const at = now();
      const until = seen.get(signature);
      if (until !== undefined && until >= at) return false;
      seen.set(signature, at + keepMs);
      // The copy for the next start; a failure here loses only that copy, never a refusal now.
      db.query(CLAIM, [signature, at + keepMs, at]).catch(() => {});
      return true;
    },
    async sweep() {
      const at = now();
      for (const [signature, until] of seen) if (until < at) seen.delete(signature);
      await db.query('DELETE FROM seen_signatures WHERE expires_at < $1', [at]);
    },
  };
}

function createSharedSeenSignatures(db: Database, now: () => number): SeenSignatures {
  return {
    async claim(signature, keepMs) {
      const at = now();
      const { rows } = await db.query(CLAIM, [signature, at + keepMs, at]);
      return rows.length === 1;
    },
    async sweep() {
      await db.query('DELETE FROM seen_signatures WHERE expires_at < $1', [now()]);
    },
  };
}
