/**
 * A local HTTP server on 127.0.0.1 that answers like TeamPass 2.1.27.36's legacy API, as written
 * down in docs/teampass.md: raw-URI matching, `apikey` first, no percent-decoding,
 * per-value item encoding, ONE base64 blob for folders, arrays vs objects keyed by id,
 * `{"err":"No results"}` with HTTP 200, its error table with the odd statuses, non-JSON bodies,
 * the echoed wrong key, empty passwords for items of personal folders, and read/userfolders
 * leaving out folders whose title PHP calls empty while read/userpw lists their items. Faults (slow, huge, 5xx, dropped connections) are switched on per test, and
 * every request is recorded as the server saw it.
 *
 * @see ../../../../docs/teampass.md
 * @module
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  TEAMPASS2_API_VERSION,
  TEAMPASS2_ERRORS,
  type TeamPass2Answer,
  type TeamPass2Error,
} from '../legacy/teampass2.ts';
import { randomIndex } from '../password-generator.ts';

/** One request as the server received it: the raw URL, never percent-decoded. */
export interface SeenRequest {
  /** The HTTP method. */
  method: string;
  /** The request target as sent (path and query), never percent-decoded. */
  url: string;
  /** The request headers. */
  headers: IncomingMessage['headers'];
  /** The whole request body. */
  body: Buffer;
  /** When it arrived (performance.now()). */
  at: number;
}

/** An item as the replay server stores it (all values text, like TeamPass). */
export interface StoredItem {
  id: string;
  label: string;
  description: string;
  login: string;
  email: string;
  url: string;
  pw: string;
  folder_id: string;
  tags: string;
  anyone_can_modify: string;
  deleted?: boolean;
}

/** A folder of the replay server. */
export interface StoredFolder {
  id: string;
  title: string;
  parent_id: string;
  complexity: string;
  renewal: string;
  personal: string;
}

/** A user: the folders they can reach and with which right. */
export interface StoredUser {
  /** Folder id → access_type. An empty map stands for a user without roles (TP answers SQL text). */
  rights: Record<string, string>;
}

/** A stored attachment. */
export interface StoredFile {
  id: string;
  itemId: string;
  name: string;
  type: string;
  bytes: Buffer;
}

/** A canned answer that overrides the emulation. */
export interface Reply {
  status?: number;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Wait this long before sending the headers. */
  delayMs?: number;
  /** Send the headers and this much of the body, then stall forever. */
  stallAfterBytes?: number;
  /** Stream this many bytes of JSON-ish filler (for huge bodies), without Content-Length. */
  streamBytes?: number;
  /** Destroy the socket without answering: a network error. */
  destroy?: boolean;
}

/**
 * A fault: when `match` holds, answer `reply`; `times` limits how often. Without `match`, every
 * request but the client's keyless server identification (`/info/version`), so that a client on
 * `keyTransport: 'auto'` meets the fault on the call the test makes.
 */
export interface Fault {
  match?: (request: SeenRequest) => boolean;
  reply: Reply | ((request: SeenRequest) => Reply);
  times?: number;
}

/** An answer of {@link TEAMPASS2_ERRORS} as this server sends it: the body as TeamPass writes it. */
function written(answer: TeamPass2Answer): { status: number; body: string } {
  return { status: answer.status, body: JSON.stringify(answer.body) };
}

/**
 * TeamPass 2's error table (docs/teampass.md, the core's `TEAMPASS2_ERRORS`), as bodies and
 * statuses; `<key>` is replaced by the key sent.
 */
export const ERROR_TABLE = {
  ...(Object.fromEntries(
    Object.entries(TEAMPASS2_ERRORS).map(([name, answer]) => [name, written(answer)]),
  ) as Record<TeamPass2Error, { status: number; body: string }>),
  wrongKey: { status: 405, body: '{"err":"This api_key <key> doesn\'t exist","code":"API_KEY_NOT_FOUND"}' },
  unknownObjectEmpty: { status: 200, body: '' },
} as const satisfies Record<string, { status: number; body: string }>;

/** Bodies that are not JSON, sent with HTTP 200 and a JSON content type. */
export const NON_JSON_BODIES = {
  sql:
    "Error: You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near ') AND i.inactif = 0' at line 1 " +
    'def5020012ab8f9c3e4d5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3',
  empty: '',
  html: '<br />\n<b>Fatal error</b>:  Uncaught Error: Call to a member function fetch() on bool in /var/www/html/teampass/api/functions.php:412\nStack trace:\n#0 {main}\n  thrown in <b>/var/www/html/teampass/api/functions.php</b> on line <b>412</b><br />',
} as const;

/** The client's keyless identification request (a script's `info/version` carries its key). */
function isIdentification(request: SeenRequest): boolean {
  return (
    /^\/api(?:\/index\.php)?\/info\/version(?:\?|$)/.test(request.url) && !/[?&]apikey=/.test(request.url)
  );
}

/** TeamPass's `new_password/<params>?apikey=`: its verb has no object, so ROUTE does not take it. */
const NEW_PASSWORD = /^\/api(?:\/index\.php)?\/new_password(?:\/([^?]*))?\?apikey=([^&]*)(?:&.*)?$/;

/**
 * What TeamPass 2.1.27.36 generates for `new_password` (its api/functions.php and
 * ComputerPasswordGenerator): upper- and lower-case letters and digits always, look-alikes always
 * left out, symbols when `secure` is 1, or when `symbols` and `base64` both are; the length
 * `size`, 8 when empty or 0; base64-encoded when `base64` is 1.
 */
function teampassNewPassword(params: string): string {
  const values = params.split(';');
  const on = (index: number) => values[index] === '1';
  const size = Number.parseInt(values[0] ?? '', 10) || 8;
  const symbols = on(1) || (on(5) && on(6));
  const alphabet = (
    'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789' +
    (symbols ? '!@$%^&*()<>,.?/[]{}-=_+' : '')
  ).replace(/[iIl1Oo0]/g, '');
  let password = '';
  for (let i = 0; i < size; i++) password += alphabet[randomIndex(alphabet.length)];
  // TeamPass writes the JSON by hand, with a space around the colon.
  return `{"password" : "${on(6) ? Buffer.from(password).toString('base64') : password}"}`;
}

const ROUTE = /^\/api(?:\/index\.php)?\/([a-z]+)\/([a-z]+)(?:\/([^?]*))?\?apikey=([^&]*)(?:&.*)?$/;

/** How MySQL's utf8_general_ci compares: without case and accents. */
function similarText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

/** Decodes one TP value: base64 with `-_` or `+/`, padding or none (TP uses base64_decode). */
function tpDecode(value: string): string {
  return Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
}

/**
 * Parses a multipart/form-data request body with the platform's own parser.
 *
 * @param request The request as seen.
 * @returns The form.
 */
export function parseMultipart(request: SeenRequest): Promise<FormData> {
  return new Request('http://replay/', {
    method: 'POST',
    headers: { 'content-type': String(request.headers['content-type'] ?? '') },
    body: new Uint8Array(request.body),
  }).formData();
}

/** The replay server and what it saw. */
export interface ReplayServer {
  /** The base URL, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** The valid API key. */
  readonly apiKey: string;
  /** Every API request received, in order (identification requests are in `identifications`). */
  readonly requests: SeenRequest[];
  /** The keyless identification requests (`/info/version`) received, in order. */
  readonly identifications: SeenRequest[];
  /** Stored items by id. */
  readonly items: Map<string, StoredItem>;
  /** Stored folders by id. */
  readonly folders: Map<string, StoredFolder>;
  /** Users by login. */
  readonly users: Map<string, StoredUser>;
  /** Stored attachments by id. */
  readonly files: Map<string, StoredFile>;
  /** Answer the next matching requests with a canned reply. */
  fault(fault: Fault): void;
  /** How delete answers success: TeamPass's JSON, or the spec's bare text. */
  deleteBody: 'json' | 'text';
  /** How the collections that TeamPass sends as arrays are sent (to test the other shape). */
  collectionShape: 'teampass' | 'objects' | 'arrays';
  /**
   * Whether add/file, read/listfiles and read/files exist (the fork) or answer `{"err":"No
   * results"}` whatever they are given (every TeamPass release). Default true.
   */
  fileEndpoints: boolean;
  /**
   * TeamPass's default install: 3-byte `utf8` tables. A character outside the BMP (emoji) in a
   * label, description, login, email, URL or folder title then makes the write answer HTTP 200
   * with MySQL's error text, not JSON, and nothing is stored. Default false (4-byte tables).
   */
  threeByteTables: boolean;
  /** Store each character outside the BMP as `????` (what some TeamPass installs do). Default false. */
  mangleFourByte: boolean;
  /** Forget the requests seen and the faults. */
  reset(): void;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/** Options of {@link startReplayServer}. */
export interface ReplayOptions {
  /** The one API key it accepts (TeamPass 2 has no users' keys). */
  apiKey: string;
  /** When true, the API answers "API access not allowed." to everything. */
  apiDisabled?: boolean;
}

/**
 * Starts the replay server on 127.0.0.1, port 0, seeded with two folders, three items and two users.
 *
 * @param options The key it accepts.
 * @returns The running server.
 */
export async function startReplayServer(options: ReplayOptions): Promise<ReplayServer> {
  const requests: SeenRequest[] = [];
  const identifications: SeenRequest[] = [];
  const faults: Fault[] = [];
  const items = new Map<string, StoredItem>();
  const folders = new Map<string, StoredFolder>();
  const users = new Map<string, StoredUser>();
  const files = new Map<string, StoredFile>();
  let nextId = 100;
  const sockets = new Set<import('node:net').Socket>();

  function addFolder(id: string, title: string, parent = '0'): void {
    folders.set(id, { id, title, parent_id: parent, complexity: '0', renewal: '0', personal: '0' });
  }
  function addItem(id: string, label: string, folder: string, pw: string): void {
    items.set(id, {
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
  }
  addFolder('1', 'Team');
  addFolder('2', 'Staging', '1');
  addItem('10', 'db', '1', 'pw-db-seeded');
  addItem('11', 'cache', '2', 'pw-cache-seeded');
  addItem('12', 'personal', '2', '');
  users.set('alice', { rights: { '1': 'W', '2': 'ND' } });
  users.set('norole', { rights: {} });

  function pathOf(folderId: string): string {
    const names: string[] = [];
    let current = folders.get(folderId);
    for (let depth = 0; current && depth < 20; depth++) {
      names.unshift(current.title);
      current = folders.get(current.parent_id);
    }
    return names.join(' > ');
  }
  function levelOf(folderId: string): number {
    return pathOf(folderId).split(' > ').length;
  }
  function readRecord(item: StoredItem) {
    return {
      id: item.id,
      label: item.label,
      description: item.description,
      login: item.login,
      email: item.email,
      url: item.url,
      // TeamPass encrypts the items of personal folders with the owner's own key, which its API
      // does not have: it answers their passwords empty.
      pw: folders.get(item.folder_id)?.personal === '1' ? '' : item.pw,
      folder_id: item.folder_id,
      path: pathOf(item.folder_id),
    };
  }

  const state: ReplayServer = {
    url: '',
    apiKey: options.apiKey,
    requests,
    identifications,
    items,
    folders,
    users,
    files,
    deleteBody: 'json',
    collectionShape: 'teampass',
    fileEndpoints: true,
    threeByteTables: false,
    mangleFourByte: false,
    fault(fault) {
      faults.push(fault);
    },
    reset() {
      requests.length = 0;
      identifications.length = 0;
      faults.length = 0;
      state.deleteBody = 'json';
      state.collectionShape = 'teampass';
      state.fileEndpoints = true;
      state.threeByteTables = false;
      state.mangleFourByte = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };

  type Answer = { status: number; body: string | Buffer; headers?: Record<string, string> };
  const json = (value: unknown, status = 200): Answer => ({ status, body: JSON.stringify(value) });
  const table = (row: { status: number; body: string }): Answer => ({ status: row.status, body: row.body });
  const array = <T>(records: T[], byId: (record: T) => string): unknown => {
    if (state.collectionShape === 'objects') return Object.fromEntries(records.map((r) => [byId(r), r]));
    return records;
  };
  const keyed = <T>(records: T[], byId: (record: T) => string): unknown => {
    if (state.collectionShape === 'arrays') return records;
    return Object.fromEntries(records.map((r) => [byId(r), r]));
  };

  /** With 3-byte tables: MySQL's refusal of the first column holding a character outside the BMP. */
  function fourByteRefusal(columns: Record<string, string>): Answer | undefined {
    if (!state.threeByteTables) return undefined;
    for (const [column, value] of Object.entries(columns)) {
      const match = /[\u{10000}-\u{10FFFF}]/u.exec(value);
      if (!match) continue;
      const bytes = [...Buffer.from(match[0])]
        .map((byte) => `\\x${byte.toString(16).toUpperCase()}`)
        .join('');
      return {
        status: 200,
        body: `Incorrect string value: '${bytes}' for column \`teampass\`.\`teampass_items\`.\`${column}\` at row 1`,
      };
    }
    return undefined;
  }

  async function emulate(request: SeenRequest): Promise<Answer> {
    if (options.apiDisabled) return table(ERROR_TABLE.apiDisabled);
    const url = request.url;
    if (!/[?&]apikey=/.test(url)) return table(ERROR_TABLE.apiKeyMissing);
    const generate = NEW_PASSWORD.exec(url);
    if (generate) {
      if (decodeURIComponent(generate[2] ?? '') !== options.apiKey) {
        return { status: 405, body: ERROR_TABLE.wrongKey.body.replace('<key>', generate[2] ?? '') };
      }
      if (!generate[1]) return table(ERROR_TABLE.noParameters);
      return { status: 200, body: teampassNewPassword(generate[1]) };
    }
    const match = ROUTE.exec(url);
    if (!match) return table(ERROR_TABLE.urlFormat);
    const [, verb = '', object = '', args = '', key = ''] = match;
    let sentKey = key;
    try {
      sentKey = decodeURIComponent(key);
    } catch {
      // PHP leaves malformed escapes as they are.
    }
    if (sentKey !== options.apiKey) {
      return { status: 405, body: ERROR_TABLE.wrongKey.body.replace('<key>', sentKey) };
    }
    const parts = args === '' ? [] : args.split('/');
    const route = `${verb}/${object}`;

    if (!state.fileEndpoints && ['add/file', 'read/listfiles', 'read/files'].includes(route)) {
      return table(ERROR_TABLE.noResults);
    }
    if (request.method === 'POST' && route === 'add/file') {
      const form = await parseMultipart(request).catch(() => undefined);
      const file = form?.get('file');
      const itemId = String(form?.get('item_id') ?? '');
      if (!form || !(file instanceof File)) return json({ status: 'error', message: 'No file uploaded' });
      if (!items.has(itemId)) return json({ status: 'error', message: 'Item does not exist' });
      const id = String(nextId++);
      files.set(id, {
        id,
        itemId,
        name: file.name,
        type: file.type,
        bytes: Buffer.from(await file.arrayBuffer()),
      });
      return json({ status: 'success' });
    }

    switch (route) {
      case 'info/version':
        return json({ 'api-version': TEAMPASS2_API_VERSION });
      case 'add/item': {
        const values = (parts[0] ?? '').split(';');
        if (parts.length !== 1 || values.length !== 9) return table(ERROR_TABLE.itemNotComplete);
        const { label, pw, description, folderId, login, email, link, tags, anyone } = itemValues(values);
        const refused = fourByteRefusal({ label, description, login, email, url: link });
        if (refused) return refused;
        if (label === '' || folderId === '') return table(ERROR_TABLE.fieldMissing);
        if (pw === '') return table(ERROR_TABLE.passwordEmpty);
        if (pw.length > 200) return table(ERROR_TABLE.passwordTooLong);
        if (/<[a-z]/i.test(label + description)) return table(ERROR_TABLE.htmlTags);
        if (!folders.has(folderId)) return table(ERROR_TABLE.folderMissing);
        const similar = (text: string) =>
          text
            .normalize('NFD')
            .replace(/[\u0300-\u036f]/g, '')
            .toLowerCase()
            .trimEnd();
        for (const item of items.values()) {
          if (!item.deleted && similar(item.label) === similar(label)) return table(ERROR_TABLE.labelExists);
        }
        const id = String(nextId++);
        const stored = (text: string) =>
          state.mangleFourByte ? text.replace(/[\u{10000}-\u{10FFFF}]/gu, '????') : text;
        items.set(id, {
          id,
          label: stored(label),
          pw,
          description,
          folder_id: folderId,
          login,
          email,
          url: link,
          tags,
          anyone_can_modify: anyone,
        });
        return json({ status: 'item added', new_item_id: id });
      }
      case 'update/item': {
        const [id = '', segment = ''] = parts;
        const values = segment.split(';');
        if (parts.length !== 2 || values.length !== 9) return table(ERROR_TABLE.itemNotComplete);
        const item = items.get(id);
        if (!item || item.deleted) return table(ERROR_TABLE.noDataExists);
        const { label, pw, description, folderId, login, email, link, tags, anyone } = itemValues(values);
        const refused = fourByteRefusal({ label, description, login, email, url: link });
        if (refused) return refused;
        Object.assign(item, {
          label,
          pw,
          description,
          folder_id: folderId,
          login,
          email,
          url: link,
          tags,
          anyone_can_modify: anyone,
        });
        return json({ status: 'item updated' });
      }
      case 'delete/item': {
        for (const id of (parts[0] ?? '').split(';')) {
          const item = items.get(id);
          if (item) item.deleted = true;
        }
        return state.deleteBody === 'json' ? json({ status: 'OK' }) : { status: 200, body: 'OK' };
      }
      case 'add/folder':
      case 'update/folder': {
        const add = verb === 'add';
        const segment = (add ? parts[0] : parts[1]) ?? '';
        // TP decodes the WHOLE segment first, then splits: per-value encoding ends in a SQL error.
        const values = tpDecode(segment).split(';');
        if (values.length !== (add ? 5 : 3)) return { status: 200, body: NON_JSON_BODIES.sql };
        const title = values[0] ?? '';
        const refused = fourByteRefusal({ title });
        if (refused) return refused;
        if (/^[0-9]+$/.test(title)) return table(ERROR_TABLE.numericTitle);
        if (add) {
          const parent = values[2] ?? '0';
          if (parent !== '0' && !folders.has(parent)) return table(ERROR_TABLE.folderMissing);
          const id = String(nextId++);
          folders.set(id, {
            id,
            title,
            parent_id: parent,
            complexity: values[1] ?? '0',
            renewal: values[3] ?? '0',
            personal: values[4] ?? '0',
          });
          return json({ status: 'folder created', new_folder_id: id });
        }
        const folder = folders.get(parts[0] ?? '');
        if (!folder) return table(ERROR_TABLE.noDataExists);
        Object.assign(folder, { title, complexity: values[1], renewal: values[2] });
        return json({ status: 'folder updated' });
      }
      case 'delete/folder': {
        const ids = (parts[0] ?? '').split(';');
        if (ids.length > 4) return table(ERROR_TABLE.noFolderSpecified);
        for (const id of ids) folders.delete(id);
        return state.deleteBody === 'json' ? json({ status: 'OK' }) : { status: 200, body: 'OK' };
      }
      case 'read/items': {
        const ids = (parts[0] ?? '').split(';');
        // TP's check: is_numeric, so 1.0 and +3 pass.
        if (ids.some((id) => !/^\s*[+-]?[0-9]+(\.[0-9]+)?$/.test(id)))
          return table(ERROR_TABLE.itemNotNumeric);
        const wanted = new Set(ids.map((id) => String(Number(id))));
        const found = [...items.values()]
          .filter((item) => !item.deleted && wanted.has(item.id))
          .sort((a, b) => Number(a.id) - Number(b.id))
          .map(readRecord);
        if (found.length === 0) return table(ERROR_TABLE.noResults);
        return json(array(found, (record) => record.id));
      }
      case 'read/folder': {
        const ids = new Set((parts[0] ?? '').split(';'));
        const found = [...items.values()]
          .filter((item) => !item.deleted && ids.has(item.folder_id))
          .map(readRecord);
        if (found.length === 0) return table(ERROR_TABLE.noResults);
        return json(array(found, (record) => record.id));
      }
      case 'read/userpw':
      case 'read/userfolders': {
        const user = users.get(parts[0] ?? '');
        if (!user) return table(ERROR_TABLE.userMissing);
        if (Object.keys(user.rights).length === 0) return { status: 200, body: NON_JSON_BODIES.sql };
        if (object === 'userfolders') {
          // TeamPass lists a role's folder only when the folder exists and its title is not
          // empty by PHP's empty() ("" or "0"); read/userpw lists the items of every role folder.
          const records = Object.entries(user.rights)
            .filter(([id]) => !['', '0', undefined].includes(folders.get(id)?.title))
            .map(([id, right]) => ({
              id,
              title: folders.get(id)?.title ?? '',
              level: String(levelOf(id)),
              access_type: right,
              parent_id: folders.get(id)?.parent_id ?? '0',
            }));
          return json(keyed(records, (record) => record.id));
        }
        const records = [...items.values()]
          .filter((item) => !item.deleted && item.folder_id in user.rights)
          .map(readRecord);
        if (records.length === 0) return table(ERROR_TABLE.noResults);
        return json(keyed(records, (record) => record.id));
      }
      case 'read/listfiles': {
        const records = [...files.values()]
          .filter((file) => file.itemId === parts[0])
          .map((file) => ({
            id: file.id,
            name: file.name,
            type: file.type,
            extension: file.name.split('.').pop() ?? '',
            size: String(file.bytes.length),
          }));
        if (records.length === 0) return table(ERROR_TABLE.noResults);
        return json(keyed(records, (record) => record.id));
      }
      case 'read/files': {
        const file = files.get(parts[0] ?? '');
        if (!file) return table(ERROR_TABLE.noResults);
        return {
          status: 200,
          body: file.bytes,
          headers: {
            'content-type': file.type || 'application/octet-stream',
            'content-disposition': `attachment; filename="${file.name.replace(/[^\x20-\x7e]|"/g, '_')}"; filename*=UTF-8''${encodeURIComponent(file.name)}`,
          },
        };
      }
      case 'find/item': {
        const [folderIds = '', query = ''] = parts;
        // TP's route regex takes only [A-Za-z0-9_:'-] here: a percent-encoded or empty segment
        // (`postgres%20prod`, `example.com`, ``) is refused as "not numeric" with a 405.
        if (parts.length !== 2 || !/^[A-Za-z0-9_:'-]+$/.test(query)) return table(ERROR_TABLE.itemNotNumeric);
        // PHP's empty("0") is true: TP then fails further down with a 500.
        if (query === '0') return { status: 500, body: '' };
        const ids = new Set(folderIds.split(';'));
        const needle = query.toLowerCase();
        const found = [...items.values()]
          .filter(
            // MySQL's LIKE on utf8_general_ci: case- and accent-insensitive.
            (item) => !item.deleted && ids.has(item.folder_id) && similarText(item.label).includes(needle),
          )
          .map((item) => ({ ...readRecord(item), status: 'OK' }));
        if (found.length === 0) return table(ERROR_TABLE.noResults);
        return json(array(found, (record) => record.id));
      }
      default:
        if (['add', 'update', 'delete', 'read', 'find'].includes(verb))
          return table(ERROR_TABLE.unknownObjectEmpty);
        return table(ERROR_TABLE.methodNotAuthorized);
    }
  }

  async function send(res: ServerResponse, reply: Reply): Promise<void> {
    if (reply.destroy) {
      res.socket?.destroy();
      return;
    }
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (res.destroyed) return;
    res.statusCode = reply.status ?? 200;
    res.setHeader('content-type', 'application/json');
    for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
    if (reply.streamBytes !== undefined) {
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let left = reply.streamBytes;
      while (left > 0 && !res.destroyed) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        if (!res.write(piece)) {
          // Wait for drain or close, and take both listeners off again (they would pile up).
          await new Promise<void>((resolve) => {
            const done = () => {
              res.off('drain', done).off('close', done);
              resolve();
            };
            res.once('drain', done).once('close', done);
          });
        }
      }
      res.end();
      return;
    }
    const body = reply.body ?? '';
    if (reply.stallAfterBytes !== undefined) {
      res.flushHeaders();
      res.write(Buffer.from(body).subarray(0, reply.stallAfterBytes));
      return;
    }
    res.end(body);
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: SeenRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: performance.now(),
      };
      (isIdentification(request) ? identifications : requests).push(request);
      void (async () => {
        const index = faults.findIndex((fault) =>
          fault.match ? fault.match(request) : !isIdentification(request),
        );
        const fault = faults[index];
        if (fault) {
          if (fault.times !== undefined && --fault.times <= 0) faults.splice(index, 1);
          await send(res, typeof fault.reply === 'function' ? fault.reply(request) : fault.reply);
          return;
        }
        await send(res, await emulate(request));
      })().catch((error: unknown) => {
        res.statusCode = 599;
        res.end(String(error));
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  (state as { url: string }).url = `http://127.0.0.1:${port}`;
  return state;
}

/** The nine values of an item segment, decoded, in TeamPass's order. */
function itemValues(values: readonly string[]) {
  const [
    label = '',
    pw = '',
    description = '',
    folderId = '',
    login = '',
    email = '',
    link = '',
    tags = '',
    anyone = '',
  ] = values.map(tpDecode);
  return { label, pw, description, folderId, login, email, link, tags, anyone };
}
