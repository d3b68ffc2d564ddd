import { AsyncLocalStorage } from 'node:async_hooks';
import type { Queryable } from '../db/database.ts';
import { type AuditEntry, writeAudit } from './audit.ts';

/** Who is writing, for the audit record written inside the write's own transaction. */
export interface WriteAuditScope {
  readonly base: Omit<AuditEntry, 'target' | 'outcome'>;
  recorded: boolean;
}

/** The current request's write scope: set by the HTTP layer around each write operation. */
export const writeAuditScope: AsyncLocalStorage<WriteAuditScope> = new AsyncLocalStorage<WriteAuditScope>();

/**
 * Records a write in the same transaction as the write itself: both are kept, or neither.
 *
 * @param tx The write's transaction.
 * @param target What was written, e.g. `item 54` (ids only, never values).
 */
export async function auditWrite(tx: Queryable, target: string): Promise<void> {
  const scope = writeAuditScope.getStore();
  if (!scope) return;
  await writeAudit(tx, { ...scope.base, target, outcome: 'ok' });
  scope.recorded = true;
}
