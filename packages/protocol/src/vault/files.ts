/**
 * The domain client's attachments (`vault.files`), where the server has them (`files`).
 *
 * @module
 */

import type { VaultContext } from './context.ts';
import type { VaultFiles } from './types.ts';

/**
 * The attachments of a domain client.
 *
 * @param context The wire client.
 * @returns `vault.files`.
 */
export function vaultFiles({ wire }: VaultContext): VaultFiles {
  return {
    list: (itemId, options) => wire.listFiles({ itemId }, options),
    download: (fileId, options) => wire.downloadFile({ id: fileId }, options),
    async upload(itemId, file, options) {
      const { id } = await wire.addFile({ ...file, itemId }, options);
      return { id };
    },
  };
}
