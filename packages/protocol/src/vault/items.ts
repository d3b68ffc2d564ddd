/**
 * The domain client's items (`vault.items`): read, list, search, write and delete, over the wire
 * client of whichever dialect answers.
 *
 * @module
 */

import { VaultError } from '../errors.ts';
import type { Item } from '../legacy/schemas.ts';
import { searchItems } from '../search.ts';
import type { VaultContext } from './context.ts';
import type { ItemPages, VaultItems } from './types.ts';

/**
 * The items of a domain client.
 *
 * @param context The wire client and who the client acts as.
 * @returns `vault.items`.
 */
export function vaultItems({ wire, actingLogin }: VaultContext): VaultItems {
  return {
    get: (id, options) => wire.getItem(id, options),
    async getMany(ids, options) {
      const unique = [...new Set(ids)];
      if (unique.length === 0) return [];
      const read = await wire.readItems({ ids: unique }, options);
      const byId = new Map(read.map((item) => [item.id, item]));
      const missing = unique.filter((id) => !byId.has(id));
      if (options?.missing === 'omit') return unique.flatMap((id) => byId.get(id) ?? []);
      if (missing.length > 0) {
        throw new VaultError(
          'not_found',
          `${missing.length === 1 ? 'Item' : 'Items'} ${missing.join(', ')}: not found, or not visible to this user.`,
          { endpoint: 'readItems', missingIds: missing },
        );
      }
      return unique.map((id) => byId.get(id)!);
    },
    list(folderIds, options) {
      const ids = typeof folderIds === 'number' ? [folderIds] : [...folderIds];
      // Iterating reads a page as the caller asks for it; all() reads the pages a few at a time.
      return pagesOf(wire.itemPages(ids, options), () => wire.readFolders({ ids }, options));
    },
    async search(text, options = {}) {
      const folderIds =
        options.folderIds ??
        (await wire.readUserFolders({ login: await actingLogin(options, 'search') }, options))
          .filter((folder) => folder.accessType !== 'none')
          .map((folder) => folder.id);
      return searchItems(wire, { folderIds, text }, { fallback: options.fallback, signal: options.signal });
    },
    findByUrl: (url, options) => wire.findByUrl({ url }, options),
    async create(item, options) {
      const { id } = await wire.addItem({ item }, options);
      return { id };
    },
    async update(id, changes, options) {
      await wire.updateItemFields(id, changes, options);
    },
    async delete(ids, options) {
      await wire.deleteItems({ ids: typeof ids === 'number' ? [ids] : [...ids] }, options);
    },
    otp: (id, options) => wire.readOtp({ id }, options),
    tags: (options) => wire.readTags(options),
  };
}

/** A folder listing's pages, and `all()` to gather them at once. */
function pagesOf(pages: AsyncIterable<Item[]>, all: () => Promise<Item[]>): ItemPages {
  return { [Symbol.asyncIterator]: () => pages[Symbol.asyncIterator](), all };
}
