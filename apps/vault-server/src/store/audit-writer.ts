import type { Queryable } from '@vaultline/store';
import type { Logger } from 'pino';
import { AUDIT_BATCH_DELAY_MS, AUDIT_BATCH_SIZE } from '../constants.ts';
import { type AuditEntry, storedIdentity, writeAudit } from './audit.ts';

/** Writes audit records: writes and failures at once, reads in small batches. */
export interface AuditWriter {
  /** Records now (writes, failed authentication). */
  recordNow(entry: AuditEntry): Promise<void>;
  /** Records within {@link AUDIT_BATCH_DELAY_MS}, together with other reads: one INSERT per batch. */
  record(entry: AuditEntry): void;
  /** Writes what is waiting. */
  flush(): Promise<void>;
}

/** Creates the writer. A failed audit write is logged (never with secrets) and does not fail the request. */
export function createAuditWriter(db: Queryable, logger: Logger): AuditWriter {
  let queue: AuditEntry[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing: Promise<void> = Promise.resolve();

  const report = (error: unknown) => {
    logger.error(
      { err: { name: (error as Error).name, message: (error as Error).message } },
      'audit write failed',
    );
  };

  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const waiting = queue;
    queue = [];
    if (waiting.length === 0) return writing;
    // Identical reads (same key, operation, target, address, outcome) in one batch become one row with a count.
    const coalesced = new Map<string, { entry: AuditEntry; count: number }>();
    for (const entry of waiting) {
      const key = JSON.stringify([
        entry.actor,
        entry.keyLabel,
        entry.action,
        entry.target,
        entry.address,
        entry.outcome,
        entry.identity,
      ]);
      const found = coalesced.get(key);
      if (found) found.count++;
      else coalesced.set(key, { entry, count: 1 });
    }
    const batch = [...coalesced.values()];
    writing = writing.then(async () => {
      // One array parameter per column instead of one per value: one cheap statement per batch.
      const column = (pick: (entry: AuditEntry) => string | null) => batch.map(({ entry }) => pick(entry));
      await db
        .query(
          `INSERT INTO audit (actor, key_label, action, target, address, outcome, identity, count)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[])`,
          [
            column((e) => e.actor),
            column((e) => e.keyLabel),
            column((e) => e.action),
            column((e) => e.target.slice(0, 500)),
            column((e) => e.address),
            column((e) => e.outcome),
            column((e) => storedIdentity(e.identity)),
            batch.map(({ count }) => count),
          ],
        )
        .catch(report);
    });
    return writing;
  };

  return {
    async recordNow(entry) {
      await writeAudit(db, entry).catch(report);
    },
    record(entry) {
      queue.push(entry);
      if (queue.length >= AUDIT_BATCH_SIZE) void flush();
      else timer ??= setTimeout(() => void flush(), AUDIT_BATCH_DELAY_MS);
    },
    flush,
  };
}
