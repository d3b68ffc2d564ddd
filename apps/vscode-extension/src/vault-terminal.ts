import * as vscode from 'vscode';
import type { ConnectionStore } from './connections.ts';
import { ITEM_FIELDS, type ItemField } from './constants.ts';
import { UserFacingError } from './error-messages.ts';
import type { ItemRef } from './item-ref.ts';
import { fetchField } from './secret-fields.ts';

/** One environment variable taken from an item field. */
export interface EnvBinding {
  ref: ItemRef;
  field: ItemField;
  /** The variable name; derived from the label and field when absent. */
  name?: string;
}

/**
 * Derives a variable name: `DB_PROD_PASSWORD` from label "db-prod" and field password.
 *
 * @returns A POSIX-portable name.
 */
export function envName(label: string, field: ItemField): string {
  const base = label
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
  const name = `${base || 'ITEM'}_${field.toUpperCase()}`;
  return /^[0-9]/.test(name) ? `_${name}` : name;
}

/**
 * Opens a terminal whose environment holds vault values. Values go into the process environment
 * only: no file, and the terminal is transient so VS Code does not restore it (or its environment)
 * after a reload.
 */
export async function openVaultTerminal(
  connections: ConnectionStore,
  bindings: EnvBinding[],
): Promise<vscode.Terminal> {
  if (bindings.length === 0) throw new UserFacingError(vscode.l10n.t('choose at least one item value.'));
  const env: Record<string, string> = {};
  for (const binding of bindings) {
    const name = binding.name ?? envName(binding.ref.label ?? `item_${binding.ref.itemId}`, binding.field);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new UserFacingError(vscode.l10n.t('"{0}" is not a valid variable name.', name));
    env[name] = await fetchField(connections, binding.ref, binding.field);
  }
  const terminal = vscode.window.createTerminal({
    name: `Vaultline: ${Object.keys(env).join(', ')}`.slice(0, 80),
    env,
    isTransient: true,
  });
  terminal.show();
  return terminal;
}

/** Asks which fields of the chosen items go into the environment. */
export async function askBindings(refs: ItemRef[]): Promise<EnvBinding[] | undefined> {
  const picks = refs.flatMap((ref) =>
    ITEM_FIELDS.map((field) => ({
      label: envName(ref.label ?? `item_${ref.itemId}`, field),
      description: vscode.l10n.t('{0} of {1}', field, ref.label ?? String(ref.itemId)),
      picked: field === 'password',
      binding: { ref, field },
    })),
  );
  const chosen = await vscode.window.showQuickPick(picks, {
    canPickMany: true,
    placeHolder: vscode.l10n.t('Variables to set'),
  });
  return chosen?.map((pick) => pick.binding);
}
