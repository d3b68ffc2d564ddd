import type { Queryable } from '@vaultline/store';
import type { WorkloadIdentity } from './access.ts';

/** One audit record: who did what, from where, and how it went. Never a secret. */
export interface AuditEntry {
  actor: string;
  keyLabel: string;
  action: string;
  target: string;
  address: string;
  outcome: string;
  /** The upstream account a key acts as (upstream mode); the audit stream sends it, the table names it as `actor`. */
  upstreamAccount?: string | undefined;
  /** The workload behind the key (issued by a trust policy), when there is one. */
  identity?: WorkloadIdentity | undefined;
}

/** The stored form of an identity: JSON, or `NULL` for none. */
export function storedIdentity(identity: WorkloadIdentity | undefined): string | null {
  return identity === undefined ? null : JSON.stringify(identity);
}

/** An identity as stored. */
export function identityOf(stored: string | null): WorkloadIdentity | undefined {
  return stored === null ? undefined : (JSON.parse(stored) as WorkloadIdentity);
}

/** Appends a record. */
export async function writeAudit(db: Queryable, entry: AuditEntry): Promise<void> {
  await db.query(
    'INSERT INTO audit (actor, key_label, action, target, address, outcome, identity) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [
      entry.actor,
      entry.keyLabel,
      entry.action,
      entry.target.slice(0, 500),
      entry.address,
      entry.outcome,
      storedIdentity(entry.identity),
    ],
  );
}

/** Reads the newest records first. */
export async function listAudit(
  db: Queryable,
  options: { limit: number; action?: string | undefined },
): Promise<(AuditEntry & { id: number; at: string; count: number })[]> {
  const rows = await db.query<{
    id: number;
    at: Date | string;
    actor: string;
    key_label: string;
    action: string;
    target: string;
    address: string;
    outcome: string;
    count: number;
    identity: string | null;
  }>(
    `SELECT id, at, actor, key_label, action, target, address, outcome, count, identity FROM audit
      WHERE ($1::text IS NULL OR action = $1) ORDER BY id DESC LIMIT $2`,
    [options.action ?? null, options.limit],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    at: new Date(row.at).toISOString(),
    actor: row.actor,
    keyLabel: row.key_label,
    action: row.action,
    target: row.target,
    address: row.address,
    outcome: row.outcome,
    count: Number(row.count),
    ...(row.identity === null ? {} : { identity: identityOf(row.identity) }),
  }));
}
