import { generatePassword } from '@vaultline/protocol';
import * as vscode from 'vscode';
import { COMMANDS, ONE_TIME_CODE_MIN_SECONDS } from '../constants.ts';
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
  const title = vscode.l10n.t('Copy a vault value');
  const ref = await chooseItem(search, target, title);
  if (!ref) return undefined;
  const chosen = await chooseField(field, [], title);
  if (!chosen) return undefined;
  const value = await fetchField(connections, ref, chosen);
  if (value === '') throw new UserFacingError(noValueMessage(chosen));
  return clipboard.copy(value, fieldLabel(chosen), seconds);
}

/** How long after the current code's end the next one is read (clocks differ a little). */
const NEXT_CODE_MARGIN_MS = 300;

/**
 * Copies an item's current one-time code (the target, or one chosen in search) with auto-clear,
 * and says how many seconds it stays valid; a code with less than
 * {@link ONE_TIME_CODE_MIN_SECONDS} seconds left is waited out and the next one copied. Like any
 * copy, allowed while presenting: the code is never shown, only the seconds.
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
  const name = ref.label ?? String(ref.itemId);
  let { code, secondsLeft } = await fetchOneTimeCode(connections, ref);
  // A code about to change would often be refused by the time it is pasted: the next one is
  // copied instead, once it is there (at most a few seconds).
  if (secondsLeft < ONE_TIME_CODE_MIN_SECONDS) {
    notifier.status(
      vscode.l10n.t(
        'Vaultline: the one-time code of "{0}" changes in {1} s: copying the next one then',
        name,
        secondsLeft,
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, secondsLeft * 1000 + NEXT_CODE_MARGIN_MS));
    ({ code, secondsLeft } = await fetchOneTimeCode(connections, ref));
  }
  const { cleared } = await clipboard.copy(code, vscode.l10n.t('One-time code'), seconds);
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
