/**
 * `list_folders`.
 *
 * @module
 */

import { permissionsOf } from '@vaultline/protocol';
import { UNTRUSTED_NOTICE, untrusted } from '../untrusted.ts';
import { type Answer, folderPaths, type ToolContext, userFolders } from './context.ts';

/** `list_folders`: the folders the user may access, with their right on each. */
export async function foldersTool(context: ToolContext): Promise<Answer> {
  const folders = await userFolders(context);
  const paths = folderPaths(folders);
  return {
    notice: UNTRUSTED_NOTICE,
    folders: folders.map((folder) => {
      const right = permissionsOf(folder.accessType);
      return {
        id: folder.id,
        right: right.code,
        rightWords: right.words,
        canRead: right.read,
        canAddItems: right.add,
        data: {
          title: untrusted(folder.title),
          path: (paths.get(folder.id) ?? [folder.title]).map(untrusted),
        },
      };
    }),
  };
}
