/**
 * The API as ONE typed table: every operation of the spec, with its method, path template, typed
 * parameters and how they are encoded, and its response. Client methods, server routes, docs and
 * the conformance suite are derived from it.
 *
 * @see ../../../../docs/spec.md §4
 * @module
 */

import type * as v from 'valibot';
import {
  AddFileResultSchema,
  AddFolderResultSchema,
  AddItemResultSchema,
  FileListSchema,
  FolderListSchema,
  FoundItemListSchema,
  ItemListSchema,
  NewPasswordResultSchema,
  OkResultSchema,
  OtpResultSchema,
  StatusResultSchema,
} from './schemas.ts';
import {
  type AnySegment,
  folderCreateSegment,
  folderUpdateSegment,
  idListSegment,
  idSegment,
  itemSegment,
  passwordRulesSegment,
  rawSegment,
  type Segment,
} from './segments.ts';

/** How a response body is read. */
export type ResponseKind = 'json' | 'binary';

/** What `{"err":"No results"}` means for an operation: nothing found, or an error. */
export type NoResults = 'empty' | 'not_found';

/** One row of the table. */
export interface EndpointDefinition {
  /** The spec's name, `<verb>/<object>`. */
  readonly operation: string;
  /** The HTTP method. */
  readonly method: 'GET' | 'POST';
  /** The path after `/api/index.php`, with `{name}` placeholders. */
  readonly path: string;
  /** The typed path parameters, one per placeholder. */
  readonly params: Readonly<Record<string, AnySegment>>;
  /** Whether the operation reads or writes: reads are retried, writes never. */
  readonly access: 'read' | 'write';
  /**
   * Whether a successful answer carries secrets (passwords or attachment contents): such reads are
   * audited like writes, and their bodies are never logged.
   */
  readonly secret: boolean;
  /** How the body is read; `binary` for file downloads. */
  readonly response: ResponseKind;
  /** The schema of a JSON body (absent for binary). */
  readonly schema?: v.GenericSchema;
  /** What `{"err":"No results"}` means; only reads of collections treat it as empty. */
  readonly noResults: NoResults;
  /** The id-list parameter whose ids may be sent over several calls, at most `size` per call. */
  readonly batch?: { readonly param: string; readonly size?: number };
  /** Keeps only records whose `field` is among the ids of `param` (TeamPass #2718 returns others). */
  readonly keep?: { readonly param: string; readonly field: string };
  /** Whether the operation takes a multipart body (add/file). */
  readonly multipart?: true;
  /** One-line summary for docs. */
  readonly summary: string;
}

/**
 * Every operation of the API.
 *
 * @see ../../../../docs/spec.md §4.2, §4.3, §4.5
 */
export const endpoints = {
  addItem: {
    operation: 'add/item',
    secret: false,
    method: 'GET',
    path: '/add/item/{item}',
    params: { item: itemSegment },
    access: 'write',
    response: 'json',
    schema: AddItemResultSchema,
    noResults: 'not_found',
    summary: 'Adds an item; fails when an item with a similar label exists.',
  },
  updateItem: {
    operation: 'update/item',
    secret: false,
    method: 'GET',
    path: '/update/item/{id}/{item}',
    params: { id: idSegment, item: itemSegment },
    access: 'write',
    response: 'json',
    schema: StatusResultSchema,
    noResults: 'not_found',
    summary: 'Replaces all nine values of an item.',
  },
  deleteItems: {
    operation: 'delete/item',
    secret: false,
    method: 'GET',
    path: '/delete/item/{ids}',
    params: { ids: idListSegment },
    access: 'write',
    response: 'json',
    schema: OkResultSchema,
    noResults: 'not_found',
    batch: { param: 'ids' },
    summary: 'Deletes items.',
  },
  addFolder: {
    operation: 'add/folder',
    secret: false,
    method: 'GET',
    path: '/add/folder/{folder}',
    params: { folder: folderCreateSegment },
    access: 'write',
    response: 'json',
    schema: AddFolderResultSchema,
    noResults: 'not_found',
    summary: 'Creates a folder; it grants no access until rights are set.',
  },
  updateFolder: {
    operation: 'update/folder',
    secret: false,
    method: 'GET',
    path: '/update/folder/{id}/{folder}',
    params: { id: idSegment, folder: folderUpdateSegment },
    access: 'write',
    response: 'json',
    schema: StatusResultSchema,
    noResults: 'not_found',
    summary: "Replaces a folder's title, complexity level and renewal period.",
  },
  deleteFolders: {
    operation: 'delete/folder',
    secret: false,
    method: 'GET',
    path: '/delete/folder/{ids}',
    params: { ids: idListSegment },
    access: 'write',
    response: 'json',
    schema: OkResultSchema,
    noResults: 'not_found',
    // TeamPass refuses more than four ids per call ("No folder specified").
    batch: { param: 'ids', size: 4 },
    summary: 'Deletes folders, at most four per call.',
  },
  addFile: {
    operation: 'add/file',
    secret: false,
    method: 'POST',
    path: '/add/file',
    params: {},
    access: 'write',
    response: 'json',
    schema: AddFileResultSchema,
    noResults: 'not_found',
    multipart: true,
    summary: 'Attaches a file to an item (multipart fields item_id and file).',
  },
  readFolders: {
    operation: 'read/folder',
    secret: true,
    method: 'GET',
    path: '/read/folder/{ids}',
    params: { ids: idListSegment },
    access: 'read',
    response: 'json',
    schema: ItemListSchema,
    noResults: 'empty',
    batch: { param: 'ids' },
    // TeamPass has answered items of other folders here (its issue #2718).
    keep: { param: 'ids', field: 'folderId' },
    summary: 'Reads the items of the given folders.',
  },
  readItems: {
    operation: 'read/items',
    secret: true,
    method: 'GET',
    path: '/read/items/{ids}',
    params: { ids: idListSegment },
    access: 'read',
    response: 'json',
    schema: ItemListSchema,
    noResults: 'empty',
    batch: { param: 'ids' },
    summary: 'Reads items by id.',
  },
  readUserItems: {
    operation: 'read/userpw',
    secret: true,
    method: 'GET',
    path: '/read/userpw/{login}',
    params: { login: rawSegment('login') },
    access: 'read',
    response: 'json',
    schema: ItemListSchema,
    noResults: 'empty',
    summary: 'Reads every item a user may access.',
  },
  readUserFolders: {
    operation: 'read/userfolders',
    secret: false,
    method: 'GET',
    path: '/read/userfolders/{login}',
    params: { login: rawSegment('login') },
    access: 'read',
    response: 'json',
    schema: FolderListSchema,
    noResults: 'empty',
    summary: 'Reads every folder a user may access, with the right they have on it.',
  },
  listFiles: {
    operation: 'read/listfiles',
    secret: false,
    method: 'GET',
    path: '/read/listfiles/{itemId}',
    params: { itemId: idSegment },
    access: 'read',
    response: 'json',
    schema: FileListSchema,
    noResults: 'empty',
    summary: "Lists an item's attachments.",
  },
  downloadFile: {
    operation: 'read/files',
    secret: true,
    method: 'GET',
    path: '/read/files/{id}',
    params: { id: idSegment },
    access: 'read',
    response: 'binary',
    noResults: 'not_found',
    summary: "Downloads an attachment's bytes.",
  },
  findItems: {
    operation: 'find/item',
    secret: true,
    method: 'GET',
    path: '/find/item/{folderIds}/{query}',
    params: { folderIds: idListSegment, query: rawSegment('search string') },
    access: 'read',
    response: 'json',
    schema: FoundItemListSchema,
    noResults: 'empty',
    batch: { param: 'folderIds' },
    summary:
      'Finds items in the given folders: TeamPass, those whose label contains the search string; Vaultline (`word-search`), those with every word of it in the label, login, URL or folder path.',
  },
  readOtp: {
    operation: 'read/otp',
    // A one-time code is a secret while it lasts: audited like a read of the password.
    secret: true,
    method: 'GET',
    path: '/read/otp/{id}',
    params: { id: idSegment },
    access: 'read',
    response: 'json',
    schema: OtpResultSchema,
    noResults: 'not_found',
    summary:
      "Reads an item's current one-time code (TOTP, RFC 6238) and the seconds it stays valid; Vaultline only (`otp`), never the secret it is made from.",
  },
  generatePassword: {
    operation: 'new_password',
    // A password made for the caller, not one of the vault's: nothing of the vault is read.
    secret: false,
    method: 'GET',
    path: '/new_password/{rules}',
    params: { rules: passwordRulesSegment },
    access: 'read',
    response: 'json',
    schema: NewPasswordResultSchema,
    noResults: 'not_found',
    summary: 'Generates a random password by the rules given; reads nothing from the vault.',
  },
} as const satisfies Record<string, EndpointDefinition>;

/** The table's type. */
export type Endpoints = typeof endpoints;

/** The name of an operation, e.g. `readItems`. */
export type EndpointName = keyof Endpoints;

/** Every operation name, in table order. */
export const ENDPOINT_NAMES = Object.keys(endpoints) as EndpointName[];

type SegmentInput<S> = S extends Segment<infer TInput, unknown> ? TInput : never;

/** The multipart fields of add/file. */
export interface FileUpload {
  /** The item the file is attached to. */
  itemId: number;
  /** The file's bytes. */
  file: Blob | Uint8Array;
  /** The attachment's name (the part's `filename`). */
  fileName: string;
  /** The media type; guessed by the server from the name when absent. */
  contentType?: string | undefined;
}

/** The parameters a client method takes. */
export type EndpointInput<K extends EndpointName> = Endpoints[K] extends { multipart: true }
  ? FileUpload
  : { [P in keyof Endpoints[K]['params']]: SegmentInput<Endpoints[K]['params'][P]> };

type SegmentOutput<S> = S extends Segment<never, infer TDecoded> ? TDecoded : never;

/**
 * The path parameters a server receives for an operation: each as its row's segment decodes it.
 * A server handler typed with it cannot read a parameter its row does not decode.
 */
export type EndpointParams<K extends EndpointName> = {
  readonly [P in keyof Endpoints[K]['params']]: SegmentOutput<Endpoints[K]['params'][P]>;
};

/** A downloaded attachment. */
export interface DownloadedFile {
  /** The bytes. */
  bytes: Uint8Array;
  /** The `Content-Type` the server sent. */
  contentType: string;
  /** The file name from `Content-Disposition`, when sent. */
  fileName: string | undefined;
}

/** What a client method resolves to. */
export type EndpointOutput<K extends EndpointName> = Endpoints[K] extends {
  schema: infer S extends v.GenericSchema;
}
  ? v.InferOutput<S>
  : DownloadedFile;

/**
 * Fills a path template with already encoded segments.
 *
 * @param template The path template, e.g. `/read/items/{ids}`.
 * @param segments The encoded segments by name.
 * @returns The path.
 */
export function fillPath(template: string, segments: Readonly<Record<string, string>>): string {
  // Every call builds two paths: split each template once instead of running a replace callback.
  let parts = compiledTemplates.get(template);
  if (parts === undefined) {
    parts = template.split(/\{(\w+)\}/);
    if (compiledTemplates.size < 64) compiledTemplates.set(template, parts);
  }
  let path = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) path += (segments[parts[i]!] ?? '') + parts[i + 1]!;
  return path;
}

/** Templates split into literal text (even indexes) and placeholder names (odd indexes). */
const compiledTemplates = /* @__PURE__ */ new Map<string, string[]>();
