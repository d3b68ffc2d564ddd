/**
 * Helpers built on calls: reading one item, and changing some fields of an item by reading it,
 * merging and sending all nine values back (update/item replaces them all).
 *
 * @module
 */

import type { CallOptions, WireMethods } from '../client/types.ts';
import { VaultError } from '../errors.ts';
import type { ItemWrite } from './codec.ts';
import type { Item } from './schemas.ts';

/**
 * Reads one item.
 *
 * @param client The client.
 * @param id The item id.
 * @param callOptions Per-call options.
 * @returns The item.
 * @throws {VaultError} `not_found` when there is no such item.
 */
export async function readOneItem(
  client: Pick<WireMethods, 'readItems'>,
  id: number,
  callOptions?: CallOptions,
): Promise<Item> {
  const [item] = await client.readItems({ ids: [id] }, callOptions);
  if (!item || item.id !== id)
    throw new VaultError('not_found', `read/items: no item with id ${id}.`, { endpoint: 'readItems' });
  return item;
}

/**
 * Changes some fields of an item: reads it, merges, and sends all nine values back. Tags and
 * "anyone can modify" cannot be read back; pass them to keep them.
 *
 * @param client The client.
 * @param id The item id.
 * @param changes The fields to change.
 * @param callOptions Per-call options.
 * @returns The server's status.
 * @throws {VaultError} `invalid_request` when the server did not return the password and none is given.
 */
export async function mergeItemFields(
  client: Pick<WireMethods, 'readItems' | 'updateItem'>,
  id: number,
  changes: Partial<ItemWrite>,
  callOptions?: CallOptions,
): Promise<{ status: string }> {
  const current = await readOneItem(client, id, callOptions);
  if (current.password === '' && changes.password === undefined) {
    // TeamPass answers "" for passwords it cannot decrypt; sending it back would erase the password.
    throw new VaultError(
      'invalid_request',
      `update/item: the vault did not return item ${id}'s password; pass the password to update it.`,
      { endpoint: 'updateItem' },
    );
  }
  const item: ItemWrite = {
    label: current.label,
    password: current.password,
    description: current.description,
    folderId: current.folderId,
    login: current.login,
    email: current.email,
    url: current.url,
  };
  for (const [name, value] of Object.entries(changes)) {
    if (value !== undefined) (item as unknown as Record<string, unknown>)[name] = value;
  }
  return client.updateItem({ id, item }, callOptions);
}
