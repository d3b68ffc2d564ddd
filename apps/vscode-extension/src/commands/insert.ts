import * as vscode from 'vscode';
import { COMMANDS } from '../constants.ts';
import { UserFacingError } from '../error-messages.ts';
import { fieldLabel } from '../field-labels.ts';
import { insertField } from '../insert-field.ts';
import { type CommandGroup, type CommandServices, command } from './command.ts';
import { chooseField, chooseItem } from './targets.ts';

/**
 * Inserts a field of an item (the target, or one chosen in search) at every cursor.
 *
 * @returns How many cursors received it; 0 when the user cancelled.
 */
export async function insertValue(
  services: CommandServices,
  target: unknown,
  field: unknown,
): Promise<number> {
  const { search, presentation, connections, notifier } = services;
  const title = vscode.l10n.t('Insert a vault value');
  const ref = await chooseItem(search, target, title);
  if (!ref) return 0;
  // Said before the item is chosen (insertField refuses it too).
  if (presentation.enabled)
    throw new UserFacingError(
      vscode.l10n.t('Inserting a value is disabled in presentation mode. Insert a reference instead.'),
    );
  const chosen = await chooseField(field, [], title);
  if (!chosen) return 0;
  const count = await insertField(connections, presentation, ref, chosen);
  notifier.status(
    count === 1
      ? vscode.l10n.t('Vaultline: inserted {0} at the cursor', fieldLabel(chosen))
      : vscode.l10n.t('Vaultline: inserted {0} at {1} cursors', fieldLabel(chosen), count),
  );
  return count;
}

/** Insert at cursor: any field, or one field each. */
export const insertCommands: CommandGroup = (services) => [
  command(COMMANDS.insertField, vscode.l10n.t('Insert'), (target?: unknown, field?: unknown) =>
    insertValue(services, target, field),
  ),
  command(COMMANDS.insertLogin, vscode.l10n.t('Insert login'), (target?: unknown) =>
    insertValue(services, target, 'login'),
  ),
  command(COMMANDS.insertPassword, vscode.l10n.t('Insert password'), (target?: unknown) =>
    insertValue(services, target, 'password'),
  ),
  command(COMMANDS.insertUrl, vscode.l10n.t('Insert URL'), (target?: unknown) =>
    insertValue(services, target, 'url'),
  ),
  command(COMMANDS.insertEmail, vscode.l10n.t('Insert email'), (target?: unknown) =>
    insertValue(services, target, 'email'),
  ),
];
