import { COMMANDS, FIELD_LABELS } from '../constants.ts';
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
  const ref = await chooseItem(search, target, 'Insert a vault value');
  if (!ref) return 0;
  const chosen = await chooseField(field, presentation.enabled ? ['password'] : []);
  if (!chosen) return 0;
  const count = await insertField(connections, presentation, ref, chosen);
  notifier.status(`Vaultline: inserted ${FIELD_LABELS[chosen].toLowerCase()} at ${count} cursor(s)`);
  return count;
}

/** Insert at cursor: any field, or one field each. */
export const insertCommands: CommandGroup = (services) => [
  command(COMMANDS.insertField, 'Insert', (target?: unknown, field?: unknown) =>
    insertValue(services, target, field),
  ),
  command(COMMANDS.insertLogin, 'Insert login', (target?: unknown) => insertValue(services, target, 'login')),
  command(COMMANDS.insertPassword, 'Insert password', (target?: unknown) =>
    insertValue(services, target, 'password'),
  ),
  command(COMMANDS.insertUrl, 'Insert URL', (target?: unknown) => insertValue(services, target, 'url')),
  command(COMMANDS.insertEmail, 'Insert email', (target?: unknown) => insertValue(services, target, 'email')),
];
