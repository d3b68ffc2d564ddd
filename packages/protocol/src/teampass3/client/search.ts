/**
 * Searching on TeamPass 3: items by label, items by URL, and the tags in use.
 *
 * @see ../README.md
 * @module
 */

import type { CallOptions } from '../../client/types.ts';
import { encodeIdList } from '../../legacy/codec.ts';
import { foldLabel } from '../../text.ts';
import type { UrlMatch } from '../../vault/types.ts';
import { signalOf, type TeamPass3ClientState, type TeamPass3Operation } from './context.ts';
import { toItem } from './records.ts';

/** `item/get?label=…&like=1`, every page, kept to the given folders and to labels holding the text. */
export const findItems: TeamPass3Operation<'findItems'> = async (
  { session },
  { folderIds, query },
  callOptions,
) => {
  encodeIdList(folderIds);
  const folders = new Set(folderIds);
  const page = await session.readAll('searchItems', { label: query, like: true }, signalOf(callOptions));
  const wanted = foldLabel(query);
  // TeamPass's LIKE reads % and _ as wildcards: the text is matched here as written.
  return page.items
    .filter((record) => folders.has(record.folderId) && foldLabel(record.label).includes(wanted))
    .map((record) => ({ ...toItem(record), status: 'OK' }));
};

/** The items whose URL matches, as `item/findByUrl` answers. */
export async function findByUrl(
  { session }: TeamPass3ClientState,
  url: string,
  callOptions: CallOptions | undefined,
): Promise<UrlMatch[]> {
  const matches = await session.call('findByUrl', { url }, signalOf(callOptions));
  return matches.map((match) => ({
    id: match.id,
    label: match.label,
    login: match.login,
    url: match.url,
    folderId: match.folderId,
    otp: match.otp,
  }));
}

/** Every tag in use. */
export function readTags(
  { session }: TeamPass3ClientState,
  callOptions: CallOptions | undefined,
): Promise<string[]> {
  return session.call('allTags', {}, signalOf(callOptions));
}
