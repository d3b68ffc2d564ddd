/**
 * An item's secrets at rest: its password, TOTP secret and custom fields, each sealed with the
 * master key and bound to its row and column (`items:<id>:<column>` as additional data), so that a
 * sealed value copied to another row or column does not open there.
 *
 * Releases before migration 12 sealed them bound to nothing. The migration leaves a mark in `meta`;
 * the first instance that opens the vault after it seals every item's secrets again, bound, in one
 * transaction under the migrations' lock, before it (or any other instance) serves a request
 * ({@link bindItemSecrets}).
 *
 * @module
 */

import type { Database, Queryable } from '@vaultline/store';
import type { SecretBox } from '../crypto/secret-box.ts';
import { MIGRATION_LOCK_KEY } from '../db/migrations.ts';

/** The columns of `items` that hold a sealed value. */
export type ItemSecretColumn = 'password' | 'totp' | 'fields';

/** The `meta` row migration 12 leaves: the items' secrets are still to be bound to their rows. */
export const UNBOUND_ITEM_SECRETS = 'items: secrets to bind';

/** The additional data an item's secret is sealed with. */
function rowData(id: number, column: ItemSecretColumn): Buffer {
  return Buffer.from(`items:${id}:${column}`, 'utf8');
}

/** Seals an item's secret (text) for its row and column. */
export function sealItemSecret(box: SecretBox, id: number, column: ItemSecretColumn, plain: string): Buffer {
  return box.seal(Buffer.from(plain, 'utf8'), rowData(id, column));
}

/**
 * Opens an item's secret sealed for its row and column.
 *
 * @throws {VaultError} `server` when it was sealed for another row or column, or altered.
 */
export function openItemSecret(
  box: SecretBox,
  id: number,
  column: ItemSecretColumn,
  sealed: Uint8Array,
): string {
  return box.open(sealed, rowData(id, column)).toString('utf8');
}

interface SecretsRow {
  id: number | string;
  password: Uint8Array;
  totp: Uint8Array | null;
  fields: Uint8Array | null;
}

/** Rows sealed again per statement. */
const BATCH = 500;

/**
 * Seals every item's secrets again: opened with `open`, sealed with `to` for their row and column.
 *
 * @param tx The transaction.
 * @param open Opens a value as it is stored now.
 * @param to The box that seals.
 * @returns How many items.
 */
async function resealAll(
  tx: Queryable,
  open: (sealed: Uint8Array, id: number, column: ItemSecretColumn) => Buffer,
  to: SecretBox,
): Promise<number> {
  let count = 0;
  for (let after = 0; ; ) {
    const rows = await tx.query<SecretsRow>(
      'SELECT id, password, totp, fields FROM items WHERE id > $1 ORDER BY id LIMIT $2 FOR UPDATE',
      [after, BATCH],
    );
    if (rows.length === 0) return count;
    const reseal = (row: SecretsRow, column: ItemSecretColumn) => {
      const sealed = row[column];
      const id = Number(row.id);
      return sealed === null ? null : to.seal(open(sealed, id, column), rowData(id, column));
    };
    for (const row of rows) {
      await tx.query('UPDATE items SET password = $2, totp = $3, fields = $4 WHERE id = $1', [
        Number(row.id),
        reseal(row, 'password'),
        reseal(row, 'totp'),
        reseal(row, 'fields'),
      ]);
    }
    count += rows.length;
    after = Number(rows.at(-1)!.id);
  }
}

/**
 * Seals every item's secrets under a new master key (the rotation's transaction).
 *
 * @returns How many items.
 */
export function resealItemSecrets(tx: Queryable, from: SecretBox, to: SecretBox): Promise<number> {
  return resealAll(tx, (sealed, id, column) => from.open(sealed, rowData(id, column)), to);
}

/**
 * Binds the items' secrets to their rows where migration 12 left its mark: seals each again for
 * its row and column, under the migrations' lock, and removes the mark, in one transaction.
 * Instances that open the vault meanwhile wait for it. A value already bound is sealed again as it
 * is.
 *
 * @param db The database, migrated.
 * @param box The master key's box.
 * @returns How many items were sealed again (0 when there was nothing to do).
 */
export function bindItemSecrets(db: Database, box: SecretBox): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    const mark = await tx.query('SELECT 1 FROM meta WHERE name = $1', [UNBOUND_ITEM_SECRETS]);
    if (mark.length === 0) return 0;
    const count = await resealAll(
      tx,
      (sealed, id, column) => {
        try {
          return box.open(sealed);
        } catch {
          return box.open(sealed, rowData(id, column));
        }
      },
      box,
    );
    await tx.query('DELETE FROM meta WHERE name = $1', [UNBOUND_ITEM_SECRETS]);
    return count;
  });
}
