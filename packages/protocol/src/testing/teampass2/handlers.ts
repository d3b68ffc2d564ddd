/**
 * The replay fake's emulation of TeamPass 2.1.27.36, one handler per operation of its legacy API,
 * in a table the server looks the route up in.
 *
 * @see ../../../../../docs/teampass.md
 * @module
 */

import { TEAMPASS2_API_VERSION } from '../../legacy/teampass2.ts';
import { type Answer, ERROR_TABLE, json, NON_JSON_BODIES, table } from './answers.ts';
import { itemColumns, itemValues, parseMultipart, similarText, tpDecode } from './decoding.ts';
import { teampassNewPassword } from './new-password.ts';
import { array, deleted, type Emulation, fourByteRefusal, keyed, levelOf, readRecord } from './state.ts';
import type { SeenRequest, StoredUser } from './types.ts';

/** One request, routed: its operation and its path segments after the operation. */
export interface Call {
  readonly request: SeenRequest;
  /** `verb/object`, or `new_password`. */
  readonly route: string;
  /** The segments after the route, still encoded. */
  readonly parts: readonly string[];
}

/** How one operation answers. */
export type Handler = (emulation: Emulation, call: Call) => Answer | Promise<Answer>;

/** Case- and accent-insensitive, trailing spaces ignored: how TeamPass tells labels alike. */
const similarLabel = (text: string) => similarText(text).trimEnd();

const addItem: Handler = (emulation, { parts }) => {
  const { server } = emulation;
  const values = (parts[0] ?? '').split(';');
  if (parts.length !== 1 || values.length !== 9) return table(ERROR_TABLE.itemNotComplete);
  const decoded = itemValues(values);
  const { label, pw, description, folderId, login, email, link } = decoded;
  const refused = fourByteRefusal(emulation, { label, description, login, email, url: link });
  if (refused) return refused;
  if (label === '' || folderId === '') return table(ERROR_TABLE.fieldMissing);
  if (pw === '') return table(ERROR_TABLE.passwordEmpty);
  if (pw.length > 200) return table(ERROR_TABLE.passwordTooLong);
  if (/<[a-z]/i.test(label + description)) return table(ERROR_TABLE.htmlTags);
  if (!server.folders.has(folderId)) return table(ERROR_TABLE.folderMissing);
  for (const item of server.items.values()) {
    if (!item.deleted && similarLabel(item.label) === similarLabel(label))
      return table(ERROR_TABLE.labelExists);
  }
  const id = emulation.newId();
  const stored = (text: string) =>
    server.mangleFourByte ? text.replace(/[\u{10000}-\u{10FFFF}]/gu, '????') : text;
  server.items.set(id, { id, ...itemColumns(decoded), label: stored(label) });
  return json({ status: 'item added', new_item_id: id });
};

const updateItem: Handler = (emulation, { parts }) => {
  const [id = '', segment = ''] = parts;
  const values = segment.split(';');
  if (parts.length !== 2 || values.length !== 9) return table(ERROR_TABLE.itemNotComplete);
  const item = emulation.server.items.get(id);
  if (!item || item.deleted) return table(ERROR_TABLE.noDataExists);
  const decoded = itemValues(values);
  const { label, description, login, email, link } = decoded;
  const refused = fourByteRefusal(emulation, { label, description, login, email, url: link });
  if (refused) return refused;
  Object.assign(item, itemColumns(decoded));
  return json({ status: 'item updated' });
};

const deleteItems: Handler = (emulation, { parts }) => {
  for (const id of (parts[0] ?? '').split(';')) {
    const item = emulation.server.items.get(id);
    if (item) item.deleted = true;
  }
  return deleted(emulation);
};

/**
 * A folder's values, or the answer refusing them. TeamPass decodes the WHOLE segment first, then
 * splits: per-value encoding ends in a SQL error.
 */
function folderValues(emulation: Emulation, segment: string, count: number): string[] | Answer {
  const values = tpDecode(segment).split(';');
  if (values.length !== count) return { status: 200, body: NON_JSON_BODIES.sql };
  const title = values[0] ?? '';
  const refused = fourByteRefusal(emulation, { title });
  if (refused) return refused;
  if (/^[0-9]+$/.test(title)) return table(ERROR_TABLE.numericTitle);
  return values;
}

const addFolder: Handler = (emulation, { parts }) => {
  const { folders } = emulation.server;
  const values = folderValues(emulation, parts[0] ?? '', 5);
  if (!Array.isArray(values)) return values;
  const parent = values[2] ?? '0';
  if (parent !== '0' && !folders.has(parent)) return table(ERROR_TABLE.folderMissing);
  const id = emulation.newId();
  folders.set(id, {
    id,
    title: values[0] ?? '',
    parent_id: parent,
    complexity: values[1] ?? '0',
    renewal: values[3] ?? '0',
    personal: values[4] ?? '0',
  });
  return json({ status: 'folder created', new_folder_id: id });
};

const updateFolder: Handler = (emulation, { parts }) => {
  const values = folderValues(emulation, parts[1] ?? '', 3);
  if (!Array.isArray(values)) return values;
  const folder = emulation.server.folders.get(parts[0] ?? '');
  if (!folder) return table(ERROR_TABLE.noDataExists);
  Object.assign(folder, { title: values[0] ?? '', complexity: values[1], renewal: values[2] });
  return json({ status: 'folder updated' });
};

const deleteFolders: Handler = (emulation, { parts }) => {
  const ids = (parts[0] ?? '').split(';');
  if (ids.length > 4) return table(ERROR_TABLE.noFolderSpecified);
  for (const id of ids) emulation.server.folders.delete(id);
  return deleted(emulation);
};

const readItems: Handler = (emulation, { parts }) => {
  const ids = (parts[0] ?? '').split(';');
  // TP's check: is_numeric, so 1.0 and +3 pass.
  if (ids.some((id) => !/^\s*[+-]?[0-9]+(\.[0-9]+)?$/.test(id))) return table(ERROR_TABLE.itemNotNumeric);
  const wanted = new Set(ids.map((id) => String(Number(id))));
  const found = [...emulation.server.items.values()]
    .filter((item) => !item.deleted && wanted.has(item.id))
    .sort((a, b) => Number(a.id) - Number(b.id))
    .map((item) => readRecord(emulation, item));
  if (found.length === 0) return table(ERROR_TABLE.noResults);
  return json(array(emulation, found, (record) => record.id));
};

const readFolder: Handler = (emulation, { parts }) => {
  const ids = new Set((parts[0] ?? '').split(';'));
  const found = [...emulation.server.items.values()]
    .filter((item) => !item.deleted && ids.has(item.folder_id))
    .map((item) => readRecord(emulation, item));
  if (found.length === 0) return table(ERROR_TABLE.noResults);
  return json(array(emulation, found, (record) => record.id));
};

/** The user a per-user read names, or TeamPass's answer when there is none or they have no role. */
function userOf(emulation: Emulation, login: string): StoredUser | Answer {
  const user = emulation.server.users.get(login);
  if (!user) return table(ERROR_TABLE.userMissing);
  if (Object.keys(user.rights).length === 0) return { status: 200, body: NON_JSON_BODIES.sql };
  return user;
}

const readUserFolders: Handler = (emulation, { parts }) => {
  const user = userOf(emulation, parts[0] ?? '');
  if (!('rights' in user)) return user;
  const { folders } = emulation.server;
  // TeamPass lists a role's folder only when the folder exists and its title is not empty by
  // PHP's empty() ("" or "0"); read/userpw lists the items of every role folder.
  const records = Object.entries(user.rights)
    .filter(([id]) => !['', '0', undefined].includes(folders.get(id)?.title))
    .map(([id, right]) => ({
      id,
      title: folders.get(id)?.title ?? '',
      level: String(levelOf(emulation, id)),
      access_type: right,
      parent_id: folders.get(id)?.parent_id ?? '0',
    }));
  return json(keyed(emulation, records, (record) => record.id));
};

const readUserItems: Handler = (emulation, { parts }) => {
  const user = userOf(emulation, parts[0] ?? '');
  if (!('rights' in user)) return user;
  const records = [...emulation.server.items.values()]
    .filter((item) => !item.deleted && item.folder_id in user.rights)
    .map((item) => readRecord(emulation, item));
  if (records.length === 0) return table(ERROR_TABLE.noResults);
  return json(keyed(emulation, records, (record) => record.id));
};

const addFile: Handler = async (emulation, { request }) => {
  if (request.method !== 'POST') return table(ERROR_TABLE.unknownObjectEmpty);
  const form = await parseMultipart(request).catch(() => undefined);
  const file = form?.get('file');
  const itemId = String(form?.get('item_id') ?? '');
  if (!form || !(file instanceof File)) return json({ status: 'error', message: 'No file uploaded' });
  if (!emulation.server.items.has(itemId)) return json({ status: 'error', message: 'Item does not exist' });
  const id = emulation.newId();
  emulation.server.files.set(id, {
    id,
    itemId,
    name: file.name,
    type: file.type,
    bytes: Buffer.from(await file.arrayBuffer()),
  });
  return json({ status: 'success' });
};

const listFiles: Handler = (emulation, { parts }) => {
  const records = [...emulation.server.files.values()]
    .filter((file) => file.itemId === parts[0])
    .map((file) => ({
      id: file.id,
      name: file.name,
      type: file.type,
      extension: file.name.split('.').pop() ?? '',
      size: String(file.bytes.length),
    }));
  if (records.length === 0) return table(ERROR_TABLE.noResults);
  return json(keyed(emulation, records, (record) => record.id));
};

const downloadFile: Handler = (emulation, { parts }) => {
  const file = emulation.server.files.get(parts[0] ?? '');
  if (!file) return table(ERROR_TABLE.noResults);
  return {
    status: 200,
    body: file.bytes,
    headers: {
      'content-type': file.type || 'application/octet-stream',
      'content-disposition': `attachment; filename="${file.name.replace(/[^\x20-\x7e]|"/g, '_')}"; filename*=UTF-8''${encodeURIComponent(file.name)}`,
    },
  };
};

const findItems: Handler = (emulation, { parts }) => {
  const [folderIds = '', query = ''] = parts;
  // TP's route regex takes only [A-Za-z0-9_:'-] here: a percent-encoded or empty segment
  // (`postgres%20prod`, `example.com`, ``) is refused as "not numeric" with a 405.
  if (parts.length !== 2 || !/^[A-Za-z0-9_:'-]+$/.test(query)) return table(ERROR_TABLE.itemNotNumeric);
  // PHP's empty("0") is true: TP then fails further down with a 500.
  if (query === '0') return { status: 500, body: '' };
  const ids = new Set(folderIds.split(';'));
  const needle = query.toLowerCase();
  const found = [...emulation.server.items.values()]
    .filter(
      // MySQL's LIKE on utf8_general_ci: case- and accent-insensitive.
      (item) => !item.deleted && ids.has(item.folder_id) && similarText(item.label).includes(needle),
    )
    .map((item) => ({ ...readRecord(emulation, item), status: 'OK' }));
  if (found.length === 0) return table(ERROR_TABLE.noResults);
  return json(array(emulation, found, (record) => record.id));
};

const newPassword: Handler = (_emulation, { parts }) => {
  if (!parts[0]) return table(ERROR_TABLE.noParameters);
  return { status: 200, body: teampassNewPassword(parts[0]) };
};

/** Every operation the fake emulates, by route. */
export const HANDLERS: Readonly<Record<string, Handler>> = {
  'info/version': () => json({ 'api-version': TEAMPASS2_API_VERSION }),
  'add/item': addItem,
  'update/item': updateItem,
  'delete/item': deleteItems,
  'add/folder': addFolder,
  'update/folder': updateFolder,
  'delete/folder': deleteFolders,
  'read/items': readItems,
  'read/folder': readFolder,
  'read/userpw': readUserItems,
  'read/userfolders': readUserFolders,
  'add/file': addFile,
  'read/listfiles': listFiles,
  'read/files': downloadFile,
  'find/item': findItems,
  new_password: newPassword,
};

/** The routes that answer "No results" whatever they are given where the server has no files. */
export const FILE_ROUTES: ReadonlySet<string> = new Set(['add/file', 'read/listfiles', 'read/files']);
