import type { AuditStream, AuditStreamStats } from '@vaultline/audit-stream';
import type { Queryable } from '@vaultline/store';
import type { Logger } from 'pino';
import { AUDIT_BATCH_DELAY_MS, AUDIT_BATCH_SIZE, AUDIT_RETRY_MS } from '../constants.ts';
import { type AuditEntry, storedIdentity, writeAudit } from './audit.ts';

/** Writes audit records: writes and failures at once, reads in small batches. */
export interface AuditWriter {
  /** Records now (writes, failed authentication). */
  recordNow(entry: AuditEntry): Promise<void>;
  /** Records within {@link AUDIT_BATCH_DELAY_MS}, together with other reads: one INSERT per batch. */
  record(entry: AuditEntry): void;
  /**
   * Sends to the audit stream a record the store already wrote, inside its write's transaction
   * (a successful write), once that transaction committed.
   */
  announce(entry: AuditEntry): void;
  /** Writes what is waiting. */
  flush(): Promise<void>;
  /** The audit stream's counters (`/readyz`); `undefined` without sinks. */
  streamStats(): AuditStreamStats | undefined;
  /**
   * Why the last batch could not be written (the database unreachable, say), while it waits to be
   * written again: reads of secrets are refused meanwhile, so that none is served unaudited.
   */
  readonly failure: unknown;
}

/**
 * A record as the audit stream sends it: every field of the entry, as it is, with the time and
 * the app. Never a secret: entries hold none.
 */
function streamed(entry: AuditEntry) {
  return { time: new Date().toISOString(), app: 'vault-server', ...entry };
}

/**
 * Creates the writer. A failed audit write is logged (never with secrets) and does not fail the
 * request; a failed batch is written again every {@link AUDIT_RETRY_MS} until it is. With a stream,
 * every record is also queued for its sinks (queued only: see `@vaultline/audit-stream`).
 */
export function createAuditWriter(db: Queryable, logger: Logger, stream?: AuditStream): AuditWriter {
  let queue: AuditEntry[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing: Promise<void> = Promise.resolve();
  let failure: unknown;

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
        .then(
          () => {
            failure = undefined;
          },
          (error: unknown) => {
            report(error);
            // Kept and written again, before anything newer: a read served is never left unaudited.
            failure = error;
            queue = [...waiting, ...queue];
            timer ??= setTimeout(() => void flush(), AUDIT_RETRY_MS);
            timer.unref();
          },
        );
    });
    return writing;
  };

  return {
    async recordNow(entry) {
      stream?.send(streamed(entry));
      await writeAudit(db, entry).catch(report);
    },
    record(entry) {
      stream?.send(streamed(entry));
      queue.push(entry);
      if (queue.length >= AUDIT_BATCH_SIZE) void flush();
      else timer ??= setTimeout(() => void flush(), AUDIT_BATCH_DELAY_MS);
    },
    announce(entry) {
      stream?.send(streamed(entry));
    },
    streamStats: () => stream?.stats(),
    flush,
    get failure() {
      return failure;
    },
  };
}
