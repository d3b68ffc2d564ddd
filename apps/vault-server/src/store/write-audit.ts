import { endpoints } from '@vaultline/protocol/wire';
import type { Queryable } from '@vaultline/store';
import type { Actor } from './actor.ts';
import { storedIdentity, writeAudit } from './audit.ts';

/**
 * The audit action of each store write: the API operation for writes the API offers, a name of
 * its own for administration.
 */
export const WRITE_ACTIONS = {
  addItem: endpoints.addItem.operation,
  updateItem: endpoints.updateItem.operation,
  deleteItems: endpoints.deleteItems.operation,
  addFolder: endpoints.addFolder.operation,
  updateFolder: endpoints.updateFolder.operation,
  deleteFolders: endpoints.deleteFolders.operation,
  addFile: endpoints.addFile.operation,
  createUser: 'admin/user-create',
  createRole: 'admin/role-create',
  assignRole: 'admin/role-assign',
  unassignRole: 'admin/role-unassign',
  grant: 'admin/grant',
  revoke: 'admin/revoke',
  createKey: 'admin/key-create',
  revokeKey: 'admin/key-revoke',
  rotateMasterKey: 'admin/rotate-master-key',
  addUpstreamAccount: 'admin/upstream-add',
  removeUpstreamAccount: 'admin/upstream-remove',
  updateUpstreamAccount: 'admin/upstream-update',
  addTrustPolicy: 'admin/trust-add',
  removeTrustPolicy: 'admin/trust-remove',
} as const;

/** A store write, by name. */
export type WriteAction = keyof typeof WRITE_ACTIONS;

/**
 * Records a write in the same transaction as the write itself: both are kept, or neither.
 *
 * @param tx The write's transaction.
 * @param actor Who writes.
 * @param action Which write.
 * @param target What was written, e.g. `item 54` (ids and names only, never values).
 */
export async function auditWrite(
  tx: Queryable,
  actor: Actor,
  action: WriteAction,
  target: string,
): Promise<void> {
  await writeAudit(tx, {
    actor: actor.name,
    keyLabel: actor.keyLabel,
    action: WRITE_ACTIONS[action],
    target,
    address: actor.address,
    outcome: 'ok',
    identity: actor.identity,
  });
}

/**
 * Records one write of several things (one record per target) in the write's own transaction.
 *
 * @param tx The write's transaction.
 * @param actor Who writes.
 * @param action Which write.
 * @param targets What was written, one record each.
 */
export async function auditWrites(
  tx: Queryable,
  actor: Actor,
  action: WriteAction,
  targets: readonly string[],
): Promise<void> {
  if (targets.length === 0) return;
  await tx.query(
    `INSERT INTO audit (actor, key_label, action, target, address, outcome, identity)
     SELECT $1, $2, $3, t, $4, 'ok', $6 FROM unnest($5::text[]) AS t`,
    [
      actor.name,
      actor.keyLabel,
      WRITE_ACTIONS[action],
      actor.address,
      targets.map((t) => t.slice(0, 500)),
      storedIdentity(actor.identity),
    ],
  );
}
