/**
 * Reading items by id where some may be missing, or hidden from the user: the core's
 * `items.getMany` reads them in one go and fails with `not_found` naming the missing ids
 * (`missingIds`); the others are then read again in one go.
 *
 * @module
 */

import { type Item, isVaultError, type VaultClient } from '@vaultline/protocol';

/** What {@link readItemsById} found. */
export interface ItemsById {
  /** The items read, by id. */
  readonly found: ReadonlyMap<number, Item>;
  /** The ids that are missing or hidden. */
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
  let wanted = [...new Set(ids)];
  const missing: number[] = [];
  // Each failure names ids that are missing and the rest is read again: it ends, shrinking.
  while (wanted.length > 0) {
    try {
      const items = await vault.items.getMany(wanted);
      return { found: new Map(items.map((item) => [item.id, item])), missing };
    } catch (error) {
      if (!isVaultError(error, 'not_found') || !error.missingIds?.length) throw error;
      const gone = new Set(error.missingIds);
      missing.push(...wanted.filter((id) => gone.has(id)));
      wanted = wanted.filter((id) => !gone.has(id));
    }
  }
  return { found: new Map(), missing };
}
