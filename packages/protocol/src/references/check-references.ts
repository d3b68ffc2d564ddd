/**
 * Checking references without their values: which references resolve for a login, and why the
 * others do not, with nothing in the answer that a value could hide in. For tools that must tell
 * an assistant or a linter whether a reference works while never holding what it names.
 *
 * @see ../../../../docs/references.md
 * @module
 */

import type { Reference } from './reference.ts';
import type { VaultReferenceError } from './reference-error.ts';
import {
  type ReferenceClient,
  type ResolvedItem,
  type ResolveReferencesOptions,
  resolveReferences,
} from './resolve-references.ts';

/** Options of {@link checkReferences}: those of resolution, without `values`. */
export type CheckReferencesOptions = Omit<ResolveReferencesOptions, 'values'>;

/** The outcome of checking one reference: whether it resolves, never what it resolves to. */
export type ReferenceCheck =
  | {
      /** It resolves for the login. */
      readonly ok: true;
      /** The reference, canonical. */
      readonly text: string;
      /** The parsed reference. */
      readonly reference: Reference;
      /** The item it points at (id, label, folder, path, login: never the password). */
      readonly item: ResolvedItem;
    }
  | {
      /** It does not resolve. */
      readonly ok: false;
      /** The reference: canonical when it parsed, as given otherwise. */
      readonly text: string;
      /** The parsed reference, when it parsed. */
      readonly reference: Reference | undefined;
      /** Why: a code and a message that name the reference, never a value. */
      readonly error: VaultReferenceError;
    };

/**
 * Checks references as {@link resolveReferences} resolves them (the same batching, access checks
 * and errors), without reading what only values need (no one-time code, no attachment download)
 * and without returning any value: each result is the reference, and its item or its error. The
 * item's fields that resolution reads with the item are dropped here, so a caller cannot pass one
 * on by mistake.
 *
 * @param client The vault client.
 * @param references The references, parsed or as text.
 * @param options The login to act for, a shared access checker, a signal.
 * @returns One check per reference, in the order given.
 * @throws {VaultError} When the vault cannot be read at all (network, refused credentials).
 * @example
 * ```ts
 * const [check] = await checkReferences(vault, ['vaultline://42/password'], { login: 'alice' });
 * console.log(check?.ok ? `item ${check.item.id}` : check?.error.code); // never the password
 * ```
 */
export async function checkReferences(
  client: ReferenceClient,
  references: readonly (Reference | string)[],
  options: CheckReferencesOptions = {},
): Promise<ReferenceCheck[]> {
  const resolved = await resolveReferences(client, references, { ...options, values: false });
  return resolved.map((result): ReferenceCheck => {
    if (!result.ok) return { ok: false, text: result.text, reference: result.reference, error: result.error };
    const { id, label, folderId, path, login } = result.item;
    return {
      ok: true,
      text: result.text,
      reference: result.reference,
      item: { id, label, folderId, path, login },
    };
  });
}
