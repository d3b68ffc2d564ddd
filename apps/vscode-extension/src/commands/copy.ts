import { COMMANDS, FIELD_LABELS } from '../constants.ts';
import { UserFacingError } from '../error-messages.ts';
import { generatePassword } from '../password-generator.ts';
import { fetchField } from '../secret-fields.ts';
import type { FolderNode, VaultNode } from '../tree-nodes.ts';
import { type CommandGroup, type CommandServices, command } from './command.ts';
import { chooseField, chooseItem } from './targets.ts';

/**
 * Copies a field of an item (the target, or one chosen in search) with auto-clear.
 *
 * @returns The pending clear, or `undefined` when the user cancelled.
 */
export async function copyValue(
  services: CommandServices,
  target: unknown,
  field: unknown,
  seconds?: unknown,
): Promise<{ cleared: Promise<boolean> } | undefined> {
  const { search, connections, clipboard } = services;
  const ref = await chooseItem(search, target, 'Copy a vault value');
  if (!ref) return undefined;
  const chosen = await chooseField(field);
  if (!chosen) return undefined;
  const value = await fetchField(connections, ref, chosen);
  if (value === '') throw new UserFacingError(`the item has no ${FIELD_LABELS[chosen].toLowerCase()}.`);
  return clipboard.copy(value, FIELD_LABELS[chosen], seconds);
}

/** Copy with auto-clear: any field, one field each, and a generated password. */
export const copyCommands: CommandGroup = (services) => [
  command(COMMANDS.copyField, 'Copy', (target?: unknown, field?: unknown, seconds?: unknown) =>
    copyValue(services, target, field, seconds),
  ),
  command(COMMANDS.copyLogin, 'Copy login', (target?: unknown) => copyValue(services, target, 'login')),
  command(COMMANDS.copyPassword, 'Copy password', (target?: unknown) =>
    copyValue(services, target, 'password'),
  ),
  command(COMMANDS.copyUrl, 'Copy URL', (target?: unknown) => copyValue(services, target, 'url')),
  command(COMMANDS.copyEmail, 'Copy email', (target?: unknown) => copyValue(services, target, 'email')),
  command(COMMANDS.generatePassword, 'Generate password', (node?: unknown) => {
    const level =
      (node as VaultNode | undefined)?.kind === 'folder'
        ? (node as FolderNode).folder.complexityLevel
        : undefined;
    return services.clipboard.copy(generatePassword(level), 'Generated password');
  }),
];
