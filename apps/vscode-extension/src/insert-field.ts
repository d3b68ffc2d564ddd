import * as vscode from 'vscode';
import type { ConnectionStore } from './connections.ts';
import type { ItemField } from './constants.ts';
import { UserFacingError } from './error-messages.ts';
import { noValueMessage } from './field-labels.ts';
import type { ItemRef } from './item-ref.ts';
import type { PresentationMode } from './presentation-mode.ts';
import { fetchField } from './secret-fields.ts';

/**
 * Inserts one field of an item at every selection of the active editor, replacing selected text.
 * The value is fetched from the vault right now and dropped when the edit is done.
 *
 * @returns How many selections received it.
 */
export async function insertField(
  connections: ConnectionStore,
  presentation: PresentationMode,
  ref: ItemRef,
  field: ItemField,
): Promise<number> {
  // Presentation mode masks logins and URLs on screen: no value is put into an editor while it is on.
  if (presentation.enabled)
    throw new UserFacingError(
      vscode.l10n.t('Inserting a value is disabled in presentation mode. Insert a reference instead.'),
    );
  const editor = vscode.window.activeTextEditor;
  if (!editor)
    throw new UserFacingError(vscode.l10n.t('open an editor and place the cursor where the value goes.'));
  const selections = [...editor.selections];
  const value = await fetchField(connections, ref, field);
  if (value === '') throw new UserFacingError(noValueMessage(field));
  const done = await editor.edit((builder) => {
    for (const selection of selections) builder.replace(selection, value);
  });
  if (!done) throw new UserFacingError(vscode.l10n.t('the editor did not accept the edit.'));
  return selections.length;
}
