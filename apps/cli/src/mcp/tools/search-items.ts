/**
 * `search_items`.
 *
 * @module
 */

import { formatReference, permissionsOf } from '@vaultline/protocol';
import { UNTRUSTED_NOTICE, untrusted, untrustedUrl } from '../untrusted.ts';
import { type Answer, type ToolContext, userFolders } from './context.ts';

/** The most results `search_items` returns. */
export const MAX_SEARCH_RESULTS = 50;

/**
 * `search_items`: items the user may read with every word in their label, login, URL or folder
 * path, best first. Never a password, a one-time code, a description or an email.
 */
export async function searchTool(
  context: ToolContext,
  input: { words: string; limit?: number | undefined },
): Promise<Answer> {
  const folders = await userFolders(context);
  const readable = folders
    .filter((folder) => permissionsOf(folder.accessType).read)
    .map((folder) => folder.id);
  const limit = input.limit ?? 20;
  const found =
    readable.length === 0
      ? { items: [], truncated: false }
      : await context.connection.client.items.search(input.words, { folderIds: readable });
  const items = found.items.slice(0, limit).map((item) => ({
    id: item.id,
    reference: formatReference({ kind: 'id', id: item.id, field: 'password' }),
    hasOneTimeCode: item.otp ?? null,
    folderId: item.folderId,
    data: {
      label: untrusted(item.label),
      folderPath: item.path.map(untrusted),
      login: untrusted(item.login),
      url: untrustedUrl(item.url),
      tags: (item.tags ?? []).slice(0, 20).map(untrusted),
    },
  }));
  return {
    notice: UNTRUSTED_NOTICE,
    items,
    more: found.items.length > limit || found.truncated,
  };
}
