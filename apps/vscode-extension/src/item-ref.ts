import * as vscode from 'vscode';
import { UserFacingError } from './error-messages.ts';
import type { VaultNode } from './tree-nodes.ts';

/** An item as commands address it: from a tree node, a search result or a caller's arguments. */
export interface ItemRef {
  connection: string;
  itemId: number;
  folderId?: number | undefined;
  label?: string | undefined;
  /** Whether the item holds a one-time code, when known (tree, search). */
  otp?: boolean | undefined;
}

/**
 * Reads the item a command was invoked on.
 *
 * @param target A tree node or an `{ connection, itemId }` object.
 * @returns The reference, or `undefined` when the argument names no item.
 */
export function toItemRef(target: unknown): ItemRef | undefined {
  if (typeof target !== 'object' || target === null) return undefined;
  const node = target as VaultNode | Partial<ItemRef>;
  if ('kind' in node && node.kind === 'item') {
    return {
      connection: node.connection,
      itemId: node.item.id,
      folderId: node.item.folderId,
      label: node.item.label,
      otp: node.item.otp,
    };
  }
  if (
    'itemId' in node &&
    typeof node.connection === 'string' &&
    Number.isSafeInteger(node.itemId) &&
    (node.itemId as number) > 0
  ) {
    return {
      connection: node.connection,
      itemId: node.itemId as number,
      folderId: node.folderId,
      label: node.label,
      otp: typeof node.otp === 'boolean' ? node.otp : undefined,
    };
  }
  return undefined;
}

/** Like {@link toItemRef}, but throws a plain message when no item is named. */
export function requireItemRef(target: unknown): ItemRef {
  const ref = toItemRef(target);
  if (!ref)
    throw new UserFacingError(vscode.l10n.t('choose an item in the Vaultline view or in search first.'));
  return ref;
}
