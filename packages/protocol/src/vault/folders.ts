/**
 * The domain client's folders (`vault.folders`): the acting user's folders, and folder writes.
 *
 * @module
 */

import type { VaultContext } from './context.ts';
import type { VaultFolders } from './types.ts';

/**
 * The folders of a domain client.
 *
 * @param context The wire client and who the client acts as.
 * @returns `vault.folders`.
 */
export function vaultFolders({ wire, actingLogin }: VaultContext): VaultFolders {
  return {
    async list(options) {
      return wire.readUserFolders({ login: await actingLogin(options, 'folders.list') }, options);
    },
    async create(folder, options) {
      const { id } = await wire.addFolder({ folder }, options);
      return { id };
    },
    async update(id, changes, options) {
      await wire.updateFolder({ id, folder: changes }, options);
    },
    async delete(ids, options) {
      await wire.deleteFolders({ ids: typeof ids === 'number' ? [ids] : [...ids] }, options);
    },
  };
}
