/**
 * Reads whose cost upstream follows the folders, not the ids: where the upstream takes one call
 * per id (TeamPass 3, `maxIds` 1), a `read/items` of many ids reads folders instead
 * (`item/inFolders`, paged) and picks the ids. The folders are those the ids were last seen in
 * (learned from earlier answers, any scope) or, failing that, the key's own when it has fewer.
 *
 * @module
 */

import type { Item } from '@vaultline/protocol';
import type { WireClient } from '@vaultline/protocol/wire';

/** Up to this many calls by id are made as they are (one round in flight): each id is then told apart in the audit. */
const READ_BY_ID_UP_TO = 8;

/** The most item places an account keeps (ids and folder ids only, never a value). */
const MAX_PLACES = 20_000;

/** The folder each item of an account was last seen in: a hint, checked by every read it guides. */
export class ItemPlaces {
  readonly #folders = new Map<number, number>();

  get(id: number): number | undefined {
    return this.#folders.get(id);
  }

  /** Learns where these items are now; the oldest places go first past {@link MAX_PLACES}. */
  learn(items: readonly Pick<Item, 'id' | 'folderId'>[]): void {
    for (const item of items) {
      this.#folders.delete(item.id);
      this.#folders.set(item.id, item.folderId);
    }
    for (const id of this.#folders.keys()) {
      if (this.#folders.size <= MAX_PLACES) break;
      this.#folders.delete(id);
    }
  }
}

const inside = (folders: 'all' | ReadonlySet<number>, id: number) => folders === 'all' || folders.has(id);

/**
 * The items with these ids, read the cheapest way in calls upstream. The caller still cuts the
 * answer to the scope.
 *
 * - By id when that is one round of calls (always on an upstream that reads many ids per call).
 * - By the folders the ids were last seen in, when every id's place in the scope is known and that
 *   costs fewer calls; an id not found there (moved, deleted) is then read by id, so each id is
 *   still told apart.
 * - By every folder of a narrower scope, when the scope has fewer folders than the calls by id;
 *   an id not served is then outside the scope or missing, and nothing tells which.
 *
 * @param client The account's client.
 * @param ids The ids asked.
 * @param folders The folders in scope, or `all`.
 * @param places Where the account's items were last seen; learns from this read.
 * @returns The items found, in id order, and whether an id not served was never asked of itself.
 */
export async function readItemsWithin(
  client: WireClient,
  ids: readonly number[],
  folders: 'all' | ReadonlySet<number>,
  places: ItemPlaces,
): Promise<{ items: Item[]; byFolder: boolean }> {
  const unique = [...new Set(ids)];
  const { maxIds } = await client.capabilities();
  const callsById = Math.ceil(unique.length / maxIds);
  const byId = async (some: readonly number[]) => {
    const found = some.length === 0 ? [] : await client.readItems({ ids: [...some] });
    places.learn(found);
    return found;
  };
  const inFolders = async (some: readonly number[]) => {
    const found = await client.readFolders({ ids: [...some] });
    places.learn(found);
    return found;
  };
  const sorted = (items: Item[]) => items.sort((a, b) => a.id - b.id);
  if (callsById <= READ_BY_ID_UP_TO) return { items: await byId(unique), byFolder: false };

  const seenIn = new Set<number>();
  let allSeen = true;
  for (const id of unique) {
    const folder = places.get(id);
    if (folder === undefined || !inside(folders, folder)) {
      allSeen = false;
      break;
    }
    seenIn.add(folder);
  }
  const wanted = new Set(unique);
  if (allSeen && seenIn.size < callsById) {
    const found = (await inFolders([...seenIn])).filter((item) => wanted.has(item.id));
    const got = new Set(found.map((item) => item.id));
    return {
      items: sorted([...found, ...(await byId(unique.filter((id) => !got.has(id))))]),
      byFolder: false,
    };
  }
  if (folders !== 'all' && folders.size > 0 && folders.size < callsById) {
    const found = (await inFolders([...folders])).filter((item) => wanted.has(item.id));
    return { items: sorted(found), byFolder: true };
  }
  return { items: await byId(unique), byFolder: false };
}
