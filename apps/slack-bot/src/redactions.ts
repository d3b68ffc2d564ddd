import { randomUUID } from 'node:crypto';
import type { Database } from '@vaultline/store';
import { CLAIM_MS } from './constants.ts';

/** Where a redaction goes: the message a reveal replaced (its response_url) or the reveal's modal. */
export interface Redaction {
  kind: 'response' | 'view';
  /** The response_url, or the view id. */
  target: string;
  /** What replaces the password: never a password. */
  message: Record<string, unknown>;
}

/**
 * The "hide the password again" step of each reveal, kept in the bot's store: a restarted
 * instance (even after SIGKILL), or another one, runs those that are due.
 */
export interface Redactions {
  /**
   * Schedules a redaction.
   *
   * @param redaction What to replace, and with what.
   * @param delayMs The delay.
   */
  schedule(redaction: Redaction, delayMs: number): Promise<void>;
  /** Runs the redactions that are due (any instance's). */
  sweep(): Promise<void>;
  /** Runs every redaction this instance scheduled now: when it stops, no password stays on screen. */
  flush(): Promise<void>;
  /** How many are pending, every instance's. */
  pending(): Promise<number>;
}

interface Row {
  id: string;
  kind: 'response' | 'view';
  target: string;
  message: Record<string, unknown> | string;
}

/**
 * Creates the redactions over the store.
 *
 * @param db The store.
 * @param owner This instance's id.
 * @param run Posts one redaction.
 * @param onError Called when one fails (it is not tried again: the message may be gone).
 * @param now The clock.
 * @returns They.
 */
export function createRedactions(
  db: Database,
  owner: string,
  run: (redaction: Redaction) => Promise<void>,
  onError: (error: unknown) => void,
  now: () => number = Date.now,
): Redactions {
  const runRows = async (rows: Row[]) => {
    await Promise.all(
      rows.map(async (row) => {
        try {
          const message = typeof row.message === 'string' ? JSON.parse(row.message) : row.message;
          await run({ kind: row.kind, target: row.target, message });
        } catch (error) {
          onError(error);
        } finally {
          await db.query('DELETE FROM pending_redactions WHERE id = $1', [row.id]);
        }
      }),
    );
  };
  const claim = async (where: string, params: unknown[]) => {
    const at = now();
    const rows = await db.query<Row>(
      `UPDATE pending_redactions SET claimed_until = $1
       WHERE id IN (SELECT id FROM pending_redactions WHERE claimed_until < $2 AND ${where}
                    ORDER BY due_at LIMIT 50 FOR UPDATE SKIP LOCKED)
       RETURNING id, kind, target, message`,
      [at + CLAIM_MS, at, ...params],
    );
    return rows;
  };
  return {
    async schedule(redaction, delayMs) {
      await db.query(
        'INSERT INTO pending_redactions (id, due_at, target, kind, message, owner) VALUES ($1, $2, $3, $4, $5, $6)',
        [
          randomUUID(),
          now() + delayMs,
          redaction.target,
          redaction.kind,
          JSON.stringify(redaction.message),
          owner,
        ],
      );
    },
    async sweep() {
      await runRows(await claim('due_at <= $3', [now()]));
    },
    async flush() {
      await runRows(await claim('owner = $3', [owner]));
    },
    async pending() {
      const rows = await db.query<{ n: number | string }>('SELECT count(*) AS n FROM pending_redactions');
      return Number(rows[0]?.n ?? 0);
    },
  };
}
