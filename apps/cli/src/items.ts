/**
 * Reading items by id where some may be missing, or hidden from the user: the core's
 * `items.getMany` reads them in one go and fails with `not_found` when any is missing; only then
 * is each read alone, to tell which.
 *
 * @module
 */

import { type Item, isVaultError, type VaultClient } from '@vaultline/protocol';

/** What {@link readItemsById} found. */
export interface ItemsById {
  /** The items read, by id. */
  readonly found: ReadonlyMap<number, Item>;
  /** The ids that are missing or hidden, in the order asked. */
  readonly missing: readonly number[];
}

/**
 * Reads items by id, telling which are missing or hidden instead of failing.
 *
 * @param vault The client.
 * @param ids The ids.
 * @returns The items found and the ids missing.
 */
export async function readItemsById(vault: VaultClient, ids: readonly number[]): Promise<ItemsById> {
  const unique = [...new Set(ids)];
  try {
    const items = await vault.items.getMany(unique);
    return { found: new Map(items.map((item) => [item.id, item])), missing: [] };
  } catch (error) {
    if (!isVaultError(error, 'not_found')) throw error;
    if (unique.length === 1) return { found: new Map(), missing: unique };
  }
  const read = await Promise.all(
    unique.map((id) =>
      vault.items.get(id).catch((error: unknown) => {
        if (isVaultError(error, 'not_found')) return undefined;
        throw error;
      }),
    ),
  );
  const found = new Map<number, Item>();
  for (const item of read) if (item) found.set(item.id, item);
  return { found, missing: unique.filter((id) => !found.has(id)) };
}
