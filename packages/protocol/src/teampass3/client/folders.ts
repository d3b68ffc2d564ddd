/**
 * Folders on TeamPass 3: the signed-in user's folders with their rights, the items of folders,
 * create, update (complexity levels mapped) and delete.
 *
 * @see ../README.md
 * @module
 */

import type { CallOptions } from '../../client/types.ts';
import { VaultError } from '../../errors.ts';
import { encodeId, encodeIdList } from '../../legacy/codec.ts';
import type { Item } from '../../legacy/schemas.ts';
import { foldApiPermissions } from '../../rights.ts';
import { decodeTeamPassEntities } from '../html.ts';
import type { TeamPass3Claims } from '../schemas.ts';
import { signalOf, type TeamPass3ClientState, type TeamPass3Operation } from './context.ts';
import { complexityOf, toFolder, toItem } from './records.ts';

/** How many folder ids go into one `item/inFolders` read. */
const FOLDERS_PER_READ = 200;

/** The signed-in user, when `login` names them; `unsupported` for anyone else. */
async function requireSelf(
  { session, credentials }: TeamPass3ClientState,
  login: string,
  operation: string,
  callOptions: CallOptions | undefined,
): Promise<TeamPass3Claims> {
  const user = await session.user(signalOf(callOptions));
  const self = decodeTeamPassEntities(user.login || credentials.login);
  if (self.trim().toLowerCase() !== login.trim().toLowerCase()) {
    throw new VaultError(
      'unsupported',
      `${operation}: TeamPass 3 lets the signed-in user (${JSON.stringify(self)}) read only their own data, not that of ${JSON.stringify(login)}.`,
      { endpoint: operation },
    );
  }
  return user;
}

/** Whether TeamPass refused an `item/inFolders` read because no folder it was given is visible. */
function isNoFolderLeft(error: unknown): boolean {
  return (
    error instanceof VaultError &&
    error.status === 400 &&
    /Folders are mandatory/i.test(error.serverMessage ?? '')
  );
}

/** The items of folders, every page; folders the user cannot see give nothing. */
export const readFolders: TeamPass3Operation<'readFolders'> = async (
  { session, keepOtp },
  { ids },
  callOptions,
) => {
  encodeIdList(ids);
  const unique = [...new Set(ids)];
  const wanted = new Set(unique);
  const items: Item[] = [];
  for (let start = 0; start < unique.length; start += FOLDERS_PER_READ) {
    const folders = unique.slice(start, start + FOLDERS_PER_READ);
    try {
      const page = await session.readAll('itemsInFolders', { folders }, signalOf(callOptions));
      for (const record of page.items) if (wanted.has(record.folderId)) items.push(toItem(record, keepOtp));
    } catch (error) {
      // TeamPass drops the folders the user cannot see, and answers 400 when none is left.
      if (!isNoFolderLeft(error)) throw error;
    }
  }
  return items;
};

/** The items of folders page by page, as TeamPass 3 sends them; folders the user cannot see give nothing. */
export async function* itemPages(
  { session, keepOtp }: TeamPass3ClientState,
  ids: readonly number[],
  callOptions: CallOptions | undefined,
): AsyncGenerator<Item[]> {
  encodeIdList(ids);
  const unique = [...new Set(ids)];
  const wanted = new Set(unique);
  for (let start = 0; start < unique.length; start += FOLDERS_PER_READ) {
    const folders = unique.slice(start, start + FOLDERS_PER_READ);
    try {
      for await (const page of session.pages('itemsInFolders', { folders }, signalOf(callOptions))) {
        const items = page
          .filter((record) => wanted.has(record.folderId))
          .map((record) => toItem(record, keepOtp));
        if (items.length > 0) yield items;
      }
    } catch (error) {
      // TeamPass drops the folders the user cannot see, and answers 400 when none is left.
      if (!isNoFolderLeft(error)) throw error;
    }
  }
}

/** The signed-in user's folders, their rights folded with the API permissions. */
export const readUserFolders: TeamPass3Operation<'readUserFolders'> = async (
  state,
  { login },
  callOptions,
) => {
  const user = await requireSelf(state, login, 'readUserFolders', callOptions);
  const records = await state.session.call('writableFolders', {}, signalOf(callOptions));
  return records.map((record) => toFolder(record, foldApiPermissions(record.accessType, user.api)));
};

/** The items of every folder the signed-in user may read. */
export const readUserItems: TeamPass3Operation<'readUserItems'> = async (state, { login }, callOptions) => {
  const folders = await readUserFolders(state, { login }, callOptions);
  const readable = folders.filter((folder) => folder.accessType !== 'none').map((folder) => folder.id);
  return readable.length === 0 ? [] : readFolders(state, { ids: readable }, callOptions);
};

/** Creates a folder; personal folders are TeamPass's own interface's to create. */
export const addFolder: TeamPass3Operation<'addFolder'> = async ({ session }, { folder }, callOptions) => {
  if (folder.personal) {
    throw new VaultError(
      'unsupported',
      'folder/create: TeamPass 3 creates personal folders in its own interface, not through the API; nothing was sent.',
      { endpoint: 'addFolder' },
    );
  }
  const created = await session.call(
    'createFolder',
    {
      title: folder.title,
      parent_id: folder.parentId ?? 0,
      complexity: complexityOf(folder.complexityLevel ?? 0),
      duration: folder.renewalPeriod ?? 0,
    },
    signalOf(callOptions),
  );
  return { status: 'folder created', id: created.id };
};

/** Replaces a folder's title, complexity and renewal period. */
export const updateFolder: TeamPass3Operation<'updateFolder'> = async (
  { session },
  { id, folder },
  callOptions,
) => {
  encodeId(id);
  const updated = await session.call(
    'updateFolder',
    {
      id,
      title: folder.title,
      complexity: complexityOf(folder.complexityLevel),
      duration: folder.renewalPeriod,
    },
    signalOf(callOptions),
  );
  return { status: updated.message || 'folder updated' };
};

/** Deletes folders one at a time: a delete takes its subfolders with it, those already gone are skipped. */
export const deleteFolders: TeamPass3Operation<'deleteFolders'> = async (
  { session },
  { ids },
  callOptions,
) => {
  encodeIdList(ids);
  const gone = new Set<number>();
  for (const id of new Set(ids)) {
    if (gone.has(id)) continue;
    const deleted = await session.call('deleteFolder', { id }, signalOf(callOptions));
    gone.add(id);
    for (const folderId of deleted.folderIds) gone.add(folderId);
  }
  return { status: 'OK' };
};
