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

/**
 * Creates the signature memory over the store.
 *
 * @param db The store.
 * @param now The clock.
 * @returns It.
 */
export function createSeenSignatures(db: Database, now: () => number = Date.now): SeenSignatures {
  return {
    async claim(signature, keepMs) {
      const at = now();
      const { rows } = await db.query(
        `INSERT INTO seen_signatures (signature, expires_at) VALUES ($1, $2)
         ON CONFLICT (signature) DO UPDATE SET expires_at = EXCLUDED.expires_at
           WHERE seen_signatures.expires_at < $3
         RETURNING signature`,
        [signature, at + keepMs, at],
      );
      return rows.length === 1;
    },
    async sweep() {
      await db.query('DELETE FROM seen_signatures WHERE expires_at < $1', [now()]);
    },
  };
}
