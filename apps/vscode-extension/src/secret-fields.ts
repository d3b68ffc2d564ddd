import { isVaultError, withServerWords } from '@vaultline/protocol';
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
  const item = await connection.client.items.get(ref.itemId);
  const allowed = await connection.access.canRead(await connection.actingLogin(), item);
  if (!allowed) throw new UserFacingError(vscode.l10n.t('{0} has no access to this item.', connection.login));
  return item[field];
}

/**
 * Reads an item's current one-time code (TOTP) at the moment it is needed, where the server has
 * them; kept nowhere. Where the server does not itself enforce the user's rights, the connection's
 * login is checked first, as for any field.
 *
 * @returns The code and the seconds it stays valid.
 * @throws {UserFacingError} when the server has no one-time codes, the item holds none, or the
 *   login may not read it.
 */
export async function fetchOneTimeCode(
  connections: ConnectionStore,
  ref: ItemRef,
): Promise<{ code: string; secondsLeft: number }> {
  const connection = await connections.get(ref.connection);
  const capabilities = await connection.client.capabilities();
  if (!capabilities.otp)
    throw new UserFacingError(vscode.l10n.t("this vault's server has no one-time codes."));
  const name = ref.label === undefined ? vscode.l10n.t('item {0}', ref.itemId) : `"${ref.label}"`;
  if (!capabilities.enforcedRights) {
    const folderId = ref.folderId ?? (await connection.client.items.get(ref.itemId)).folderId;
    const login = await connection.actingLogin();
    if (!(await connection.access.canRead(login, { id: ref.itemId, folderId })))
      throw new UserFacingError(vscode.l10n.t('{0} has no access to this item.', connection.login));
  }
  try {
    const { code, secondsLeft } = await connection.client.items.otp(ref.itemId);
    return { code, secondsLeft };
  } catch (error) {
    // TeamPass answers an item without a TOTP secret and one the user may not read alike.
    if (isVaultError(error, 'not_found'))
      throw new UserFacingError(
        withServerWords(
          vscode.l10n.t('{0} has no one-time code, or {1} may not read it.', name, connection.login),
          error,
          connection.client.redact,
        ),
      );
    throw error;
  }
}
