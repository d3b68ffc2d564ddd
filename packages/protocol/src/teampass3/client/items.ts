/**
 * Items on TeamPass 3: read by id (one `item/get` per id), create, update (all values, or only
 * those that changed), delete, and their one-time codes.
 *
 * @see ../README.md
 * @module
 */

import type { CallOptions } from '../../client/types.ts';
import { VaultError } from '../../errors.ts';
import { encodeId, encodeIdList, type ItemWrite } from '../../legacy/codec.ts';
import type { Item } from '../../legacy/schemas.ts';
import { signalOf, type TeamPass3ClientState, type TeamPass3Operation } from './context.ts';
import { tagsOf, toItem } from './records.ts';

/** Items by id, a few reads at a time; an id TeamPass answers `[]` for is left out. */
export const readItems: TeamPass3Operation<'readItems'> = async (state, { ids }, callOptions) => {
  encodeIdList(ids);
  const { session, keepOtp } = state;
  const unique = [...new Set(ids)];
  const answers = await session.callEach(
    'getItem',
    unique.map((id) => ({ id })),
    signalOf(callOptions),
  );
  const items: Item[] = [];
  answers.forEach((records, index) => {
    const record = records.find((candidate) => candidate.id === unique[index]);
    if (record) items.push(toItem(record, keepOtp));
  });
  return items.sort((a, b) => a.id - b.id);
};

/** One item; `not_found` when TeamPass answers `[]` (not found, or not permitted). */
export async function getItem(
  { session, keepOtp }: TeamPass3ClientState,
  id: number,
  callOptions: CallOptions | undefined,
): Promise<Item> {
  encodeId(id);
  const records = await session.call('getItem', { id }, signalOf(callOptions));
  const record = records.find((candidate) => candidate.id === id);
  if (!record) {
    throw new VaultError(
      'not_found',
      `item/get: item ${id} was not found, or the signed-in user may not read it (TeamPass 3 answers both the same way).`,
      { endpoint: 'getItem', status: 200 },
    );
  }
  return toItem(record, keepOtp);
}

/** Creates an item. */
export const addItem: TeamPass3Operation<'addItem'> = async ({ session }, { item }, callOptions) => {
  const created = await session.call(
    'createItem',
    {
      label: item.label,
      folder_id: item.folderId,
      password: item.password,
      login: item.login ?? '',
      email: item.email ?? '',
      url: item.url ?? '',
      tags: tagsOf(item.tags) ?? '',
      anyone_can_modify: item.anyoneCanModify ?? false,
      ...(item.description === undefined ? {} : { description: item.description }),
    },
    signalOf(callOptions),
  );
  return { status: created.message || 'item added', id: created.id };
};

/** Replaces all values of an item. */
export const updateItem: TeamPass3Operation<'updateItem'> = async (
  { session },
  { id, item },
  callOptions,
) => {
  encodeId(id);
  const changed = await session.call(
    'updateItem',
    {
      id,
      label: item.label,
      password: item.password,
      description: item.description ?? '',
      login: item.login ?? '',
      email: item.email ?? '',
      url: item.url ?? '',
      tags: tagsOf(item.tags) ?? '',
      anyone_can_modify: item.anyoneCanModify ?? false,
      folder_id: item.folderId,
    },
    signalOf(callOptions),
  );
  return { status: changed.message || 'item updated' };
};

/** Sends only the values that changed (TeamPass 3 updates only the fields it is sent). */
export async function updateItemFields(
  state: TeamPass3ClientState,
  id: number,
  changes: Partial<ItemWrite>,
  callOptions: CallOptions | undefined,
): Promise<{ status: string }> {
  encodeId(id);
  // Nothing to read and merge first.
  const input = {
    id,
    ...(changes.label === undefined ? {} : { label: changes.label }),
    ...(changes.password === undefined ? {} : { password: changes.password }),
    ...(changes.description === undefined ? {} : { description: changes.description }),
    ...(changes.login === undefined ? {} : { login: changes.login }),
    ...(changes.email === undefined ? {} : { email: changes.email }),
    ...(changes.url === undefined ? {} : { url: changes.url }),
    ...(changes.tags === undefined ? {} : { tags: tagsOf(changes.tags) ?? '' }),
    ...(changes.anyoneCanModify === undefined ? {} : { anyone_can_modify: changes.anyoneCanModify }),
    ...(changes.folderId === undefined ? {} : { folder_id: changes.folderId }),
  };
  if (Object.keys(input).length === 1) {
    await getItem(state, id, callOptions);
    return { status: 'unchanged' };
  }
  const changed = await state.session.call('updateItem', input, signalOf(callOptions));
  return { status: changed.message || 'item updated' };
}

/** Deletes items, one `item/delete` per id. */
export const deleteItems: TeamPass3Operation<'deleteItems'> = async ({ session }, { ids }, callOptions) => {
  encodeIdList(ids);
  await session.callEach(
    'deleteItem',
    [...new Set(ids)].map((id) => ({ id })),
    signalOf(callOptions),
  );
  return { status: 'OK' };
};

/** An item's current one-time code. */
export const readOtp: TeamPass3Operation<'readOtp'> = async ({ session }, { id }, callOptions) => {
  const otp = await session.call('getOtp', { id }, signalOf(callOptions));
  return {
    itemId: otp.itemId,
    code: otp.code,
    secondsLeft: otp.expiresIn,
    period: otp.period,
    digits: otp.digits,
  };
};
