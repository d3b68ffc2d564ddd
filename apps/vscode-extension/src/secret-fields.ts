import * as vscode from 'vscode';
import type { ConnectionStore } from './connections.ts';
import type { ItemField } from './constants.ts';
import { UserFacingError } from './error-messages.ts';
import type { ItemRef } from './item-ref.ts';

/**
 * Reads one field of an item from the vault at the moment it is needed, after checking that the
 * connection's login may read the item. The value is returned to the caller and kept nowhere.
 */
export async function fetchField(
  connections: ConnectionStore,
  ref: ItemRef,
  field: ItemField,
): Promise<string> {
  const connection = await connections.get(ref.connection);
  const item = await connection.client.getItem(ref.itemId);
  const allowed = await connection.access.canRead(connection.login, item);
  if (!allowed) throw new UserFacingError(vscode.l10n.t('{0} has no access to this item.', connection.login));
  return item[field];
}
