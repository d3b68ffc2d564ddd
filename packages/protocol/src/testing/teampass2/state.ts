/**
 * The replay fake's vault as the handlers see it: the server a test holds (its maps and switches),
 * the options it started with, the next id, and the views TeamPass 2 derives from the stored rows.
 *
 * @module
 */

import { type Answer, json } from './answers.ts';
import type { ReplayOptions, ReplayServer, StoredItem } from './types.ts';

/** What every handler works on. */
export interface Emulation {
  /** The server a test holds: the stored rows and the switches the test sets. */
  readonly server: ReplayServer;
  /** The options the server started with. */
  readonly options: ReplayOptions;
  /** A new id for an item, folder or file. */
  newId(): string;
}

/**
 * Seeds a vault: two folders, three items (one without password) and two users.
 *
 * @param server The server whose maps to fill.
 */
export function seed(server: ReplayServer): void {
  const addFolder = (id: string, title: string, parent = '0') =>
    server.folders.set(id, { id, title, parent_id: parent, complexity: '0', renewal: '0', personal: '0' });
  const addItem = (id: string, label: string, folder: string, pw: string) =>
    server.items.set(id, {
      id,
      label,
      description: `${label} description`,
      login: 'admin',
      email: 'ops@example.com',
      url: `https://${label}.example.com/?a=1&b=2`,
      pw,
      folder_id: folder,
      tags: '',
      anyone_can_modify: '0',
    });
  addFolder('1', 'Team');
  addFolder('2', 'Staging', '1');
  addItem('10', 'db', '1', 'pw-db-seeded');
  addItem('11', 'cache', '2', 'pw-cache-seeded');
  addItem('12', 'personal', '2', '');
  server.users.set('alice', { rights: { '1': 'W', '2': 'ND' } });
  server.users.set('norole', { rights: {} });
}

/** A folder's path, its ancestors' titles joined by ` > `. */
export function pathOf({ server }: Emulation, folderId: string): string {
  const names: string[] = [];
  let current = server.folders.get(folderId);
  for (let depth = 0; current && depth < 20; depth++) {
    names.unshift(current.title);
    current = server.folders.get(current.parent_id);
  }
  return names.join(' > ');
}

/** A folder's depth, 1 at the root. */
export function levelOf(emulation: Emulation, folderId: string): number {
  return pathOf(emulation, folderId).split(' > ').length;
}

/** An item as TeamPass's reads send it. */
export function readRecord(emulation: Emulation, item: StoredItem) {
  return {
    id: item.id,
    label: item.label,
    description: item.description,
    login: item.login,
    email: item.email,
    url: item.url,
    // TeamPass encrypts the items of personal folders with the owner's own key, which its API
    // does not have: it answers their passwords empty.
    pw: emulation.server.folders.get(item.folder_id)?.personal === '1' ? '' : item.pw,
    folder_id: item.folder_id,
    path: pathOf(emulation, item.folder_id),
  };
}

/** A collection TeamPass sends as an array (as objects keyed by id when the test asks). */
export function array<T>({ server }: Emulation, records: T[], byId: (record: T) => string): unknown {
  if (server.collectionShape === 'objects') return Object.fromEntries(records.map((r) => [byId(r), r]));
  return records;
}

/** A collection TeamPass sends as an object keyed by id (as an array when the test asks). */
export function keyed<T>({ server }: Emulation, records: T[], byId: (record: T) => string): unknown {
  if (server.collectionShape === 'arrays') return records;
  return Object.fromEntries(records.map((r) => [byId(r), r]));
}

/** With 3-byte tables: MySQL's refusal of the first column holding a character outside the BMP. */
export function fourByteRefusal({ server }: Emulation, columns: Record<string, string>): Answer | undefined {
  if (!server.threeByteTables) return undefined;
  for (const [column, value] of Object.entries(columns)) {
    const match = /[\u{10000}-\u{10FFFF}]/u.exec(value);
    if (!match) continue;
    const bytes = [...Buffer.from(match[0])].map((byte) => `\\x${byte.toString(16).toUpperCase()}`).join('');
    return {
      status: 200,
      body: `Incorrect string value: '${bytes}' for column \`teampass\`.\`teampass_items\`.\`${column}\` at row 1`,
    };
  }
  return undefined;
}

/** How a delete answers success: TeamPass's JSON, or the spec's bare text. */
export function deleted({ server }: Emulation): Answer {
  return server.deleteBody === 'json' ? json({ status: 'OK' }) : { status: 200, body: 'OK' };
}
