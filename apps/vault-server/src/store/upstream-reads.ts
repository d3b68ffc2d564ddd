/**
 * Reads whose cost upstream follows the scope, not the request: `read/items` of many ids under a
 * scope of fewer folders reads those folders (`item/inFolders`, paged) and picks the ids, instead
 * of one `item/get` per id on TeamPass 3.
 *
 * @module
 */

import type { Item } from '@vaultline/protocol';
import type { WireClient } from '@vaultline/protocol/wire';

/** Up to this many ids are read one by one (one round of calls in flight): each is then told apart in the audit. */
const READ_BY_ID_UP_TO = 8;

/**
 * The items with these ids, read the cheaper way for the scope: by folder when more ids are asked
 * than the scope has folders (and more than one round of calls), else by id. The caller still
 * cuts the answer to the scope.
 *
 * @param client The account's client.
 * @param ids The ids asked.
 * @param folders The folders in scope, or `all`.
 * @returns The items found, in id order, and whether they were read by folder (then an id outside
 *   the scope was not seen at all, and cannot be told from one that does not exist).
 */
export async function readItemsWithin(
  client: WireClient,
  ids: readonly number[],
  folders: 'all' | ReadonlySet<number>,
): Promise<{ items: Item[]; byFolder: boolean }> {
  const unique = [...new Set(ids)];
  if (folders === 'all' || folders.size === 0 || unique.length <= Math.max(folders.size, READ_BY_ID_UP_TO))
    return { items: await client.readItems({ ids: unique }), byFolder: false };
  const wanted = new Set(unique);
  const found = await client.readFolders({ ids: [...folders] });
  return { items: found.filter((item) => wanted.has(item.id)).sort((a, b) => a.id - b.id), byFolder: true };
}
