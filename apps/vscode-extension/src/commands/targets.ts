import * as vscode from 'vscode';
import { ITEM_FIELDS, type ItemField } from '../constants.ts';
import { UserFacingError } from '../error-messages.ts';
import { fieldLabel } from '../field-labels.ts';
import { type ItemRef, requireItemRef } from '../item-ref.ts';
import type { ItemSearch } from '../item-search.ts';
import type { FileNode, FolderNode, VaultNode } from '../tree-nodes.ts';

/**
 * The item a command acts on. No target (palette, keybinding): search. A target that names no item
 * is an error, not a search.
 */
export async function chooseItem(
  search: ItemSearch,
  target: unknown,
  title: string,
): Promise<ItemRef | undefined> {
  return target === undefined ? search.pick(title) : requireItemRef(target);
}

/**
 * The field a command acts on: the one passed, or asked for under the command's title (the same
 * title as the item search before it, so both steps read as one task).
 */
export async function chooseField(
  field: unknown,
  exclude: ItemField[] = [],
  title?: string,
): Promise<ItemField | undefined> {
  if (typeof field === 'string' && (ITEM_FIELDS as readonly string[]).includes(field))
    return field as ItemField;
  if (field !== undefined) {
    throw new UserFacingError(
      vscode.l10n.t(
        'expected one of {0}, received {1}.',
        ITEM_FIELDS.join(', '),
        String(JSON.stringify(field)).slice(0, 40),
      ),
    );
  }
  const picked = await vscode.window.showQuickPick(
    ITEM_FIELDS.filter((f) => !exclude.includes(f)).map((f) => ({ label: fieldLabel(f), field: f })),
    { ...(title === undefined ? {} : { title }), placeHolder: vscode.l10n.t('Which field?') },
  );
  return picked?.field;
}

/** The folder row a command was invoked on. */
export function asFolder(node: unknown): FolderNode {
  if ((node as VaultNode | undefined)?.kind !== 'folder')
    throw new UserFacingError(vscode.l10n.t('choose a folder in the Vaultline view.'));
  return node as FolderNode;
}

/** The attachment row a command was invoked on. */
export function asFile(node: unknown): FileNode {
  if ((node as VaultNode | undefined)?.kind !== 'file')
    throw new UserFacingError(vscode.l10n.t('choose an attachment in the Vaultline view.'));
  return node as FileNode;
}

/** The folder row above an item row, when the target is one. */
export function folderOf(target: unknown): FolderNode | undefined {
  return (target as VaultNode | undefined)?.kind === 'item'
    ? (target as { parent: FolderNode }).parent
    : undefined;
}
