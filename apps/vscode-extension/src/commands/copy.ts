import { generatePassword } from '@vaultline/protocol';
import * as vscode from 'vscode';
import { COMMANDS } from '../constants.ts';
import { UserFacingError } from '../error-messages.ts';
import { fieldLabel, noValueMessage } from '../field-labels.ts';
import { fetchField, fetchOneTimeCode } from '../secret-fields.ts';
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
  const ref = await chooseItem(search, target, vscode.l10n.t('Copy a vault value'));
  if (!ref) return undefined;
  const chosen = await chooseField(field);
  if (!chosen) return undefined;
  const value = await fetchField(connections, ref, chosen);
  if (value === '') throw new UserFacingError(noValueMessage(chosen));
  return clipboard.copy(value, fieldLabel(chosen), seconds);
}

/**
 * Copies an item's current one-time code (the target, or one chosen in search) with auto-clear,
 * and says how many seconds it stays valid. Like any copy, allowed while presenting: the code is
 * never shown, only the seconds.
 *
 * @returns The pending clear and the seconds the code stays valid, or `undefined` when cancelled.
 */
export async function copyOneTimeCode(
  services: CommandServices,
  target: unknown,
  seconds?: unknown,
): Promise<{ cleared: Promise<boolean>; secondsLeft: number } | undefined> {
  const { search, connections, clipboard, notifier } = services;
  const ref = await chooseItem(search, target, vscode.l10n.t('Copy the one-time code of an item'));
  if (!ref) return undefined;
  const { code, secondsLeft } = await fetchOneTimeCode(connections, ref);
  const { cleared } = await clipboard.copy(code, vscode.l10n.t('One-time code'), seconds);
  const name = ref.label ?? String(ref.itemId);
  notifier.status(
    secondsLeft === 1
      ? vscode.l10n.t('Vaultline: copied the one-time code of "{0}", valid 1 more second', name)
      : vscode.l10n.t(
          'Vaultline: copied the one-time code of "{0}", valid {1} more seconds',
          name,
          secondsLeft,
        ),
  );
  return { cleared, secondsLeft };
}

/** Copy with auto-clear: any field, one field each, a one-time code and a generated password. */
export const copyCommands: CommandGroup = (services) => [
  command(COMMANDS.copyField, vscode.l10n.t('Copy'), (target?: unknown, field?: unknown, seconds?: unknown) =>
    copyValue(services, target, field, seconds),
  ),
  command(COMMANDS.copyLogin, vscode.l10n.t('Copy login'), (target?: unknown) =>
    copyValue(services, target, 'login'),
  ),
  command(COMMANDS.copyPassword, vscode.l10n.t('Copy password'), (target?: unknown) =>
    copyValue(services, target, 'password'),
  ),
  command(COMMANDS.copyUrl, vscode.l10n.t('Copy URL'), (target?: unknown) =>
    copyValue(services, target, 'url'),
  ),
  command(COMMANDS.copyEmail, vscode.l10n.t('Copy email'), (target?: unknown) =>
    copyValue(services, target, 'email'),
  ),
  command(
    COMMANDS.copyOneTimeCode,
    vscode.l10n.t('Copy one-time code'),
    (target?: unknown, seconds?: unknown) => copyOneTimeCode(services, target, seconds),
  ),
  command(COMMANDS.generatePassword, vscode.l10n.t('Generate password'), (node?: unknown) => {
    const level =
      (node as VaultNode | undefined)?.kind === 'folder'
        ? (node as FolderNode).folder.complexityLevel
        : undefined;
    return services.clipboard.copy(
      generatePassword({ complexityLevel: level }),
      vscode.l10n.t('Generated password'),
    );
  }),
];
