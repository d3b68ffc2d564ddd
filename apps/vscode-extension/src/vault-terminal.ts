import * as vscode from 'vscode';
import type { ConnectionStore } from './connections.ts';
import { ITEM_FIELDS, type ItemField } from './constants.ts';
import { UserFacingError } from './error-messages.ts';
import type { ItemRef } from './item-ref.ts';
import { referenceTexts, substituteReferences } from './references/env-references.ts';
import { ReferenceResolver } from './references/reference-resolver.ts';
import { fetchField } from './secret-fields.ts';

/** One environment variable taken from an item field. */
export interface FieldBinding {
  ref: ItemRef;
  field: ItemField;
  /** The variable name; derived from the label and field when absent. */
  name?: string;
}

/** One environment variable whose value holds references (`vaultline://42/password`), resolved at open. */
export interface ReferenceBinding {
  name: string;
  value: string;
}

/** One environment variable of the terminal. */
export type EnvBinding = FieldBinding | ReferenceBinding;

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
  const withReferences: ReferenceBinding[] = [];
  for (const binding of bindings) {
    const name =
      'value' in binding
        ? binding.name
        : (binding.name ?? envName(binding.ref.label ?? `item_${binding.ref.itemId}`, binding.field));
    if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new UserFacingError(vscode.l10n.t('"{0}" is not a valid variable name.', String(name)));
    if ('value' in binding) withReferences.push({ name, value: binding.value });
    else env[name] = await fetchField(connections, binding.ref, binding.field);
  }
  Object.assign(env, await resolveBindings(connections, withReferences));
  const terminal = vscode.window.createTerminal({
    name: `Vaultline: ${Object.keys(env).join(', ')}`.slice(0, 80),
    env,
    isTransient: true,
  });
  terminal.show();
  return terminal;
}

/** Resolves the references of reference bindings, in one batch per connection. */
async function resolveBindings(
  connections: ConnectionStore,
  bindings: readonly ReferenceBinding[],
): Promise<Record<string, string>> {
  if (bindings.length === 0) return {};
  const texts = referenceTexts(bindings.map((binding) => binding.value));
  const outcomes = await new ReferenceResolver(connections).resolve(texts);
  const values = new Map<string, string>();
  outcomes.forEach(({ result }, index) => {
    if (!result.ok) throw new UserFacingError(result.error.message);
    values.set(texts[index]!, result.value);
  });
  return Object.fromEntries(
    bindings.map((binding) => [binding.name, substituteReferences(binding.value, values)]),
  );
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
