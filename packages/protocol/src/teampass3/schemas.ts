/**
 * Valibot schemas of TeamPass 3's answers, tolerant the way the legacy ones are (numbers as
 * strings and back, `null` for text, missing optional fields), and what they turn into: typed
 * records with the HTML entities TeamPass stores in labels, logins, folder titles and tags
 * decoded, each with the record as received in `raw`.
 *
 * @see ./README.md
 * @module
 */

import * as v from 'valibot';
import { type AccessType, parseRight } from '../rights.ts';
import { decodeAntiXssBrackets, decodeTeamPassEntities } from './html.ts';

/** Text: a string; numbers become strings, `null` becomes `""`. */
const text = v.union([
  v.string(),
  v.pipe(v.number(), v.transform(String)),
  v.pipe(
    v.null(),
    v.transform((): string => ''),
  ),
]);

/** Text that may be absent. */
const optionalText = v.optional(text, '');

/** Text TeamPass stores HTML-escaped, decoded. */
const escapedText = v.pipe(text, v.transform(decodeTeamPassEntities));

/** Escaped text that may be absent. */
const optionalEscapedText = v.optional(escapedText, '');

/** An id: a non-negative integer, or its decimal digits. */
const id = v.union([
  v.pipe(v.number(), v.safeInteger('Expected a numeric id'), v.minValue(0, 'Expected a numeric id')),
  v.pipe(
    v.string(),
    v.regex(/^\s*[0-9]{1,15}\s*$/, 'Expected a numeric id'),
    v.transform((value) => Number.parseInt(value, 10)),
  ),
]);

/** An integer that may come as text; absent, blank or `null` is 0. */
const integer = v.pipe(
  v.optional(v.union([v.number(), v.string(), v.null()]), 0),
  v.transform((value): number => {
    const n = typeof value === 'number' ? value : Number.parseInt(value ?? '0', 10);
    return Number.isFinite(n) ? Math.trunc(n) : 0;
  }),
);

/** A flag: `1`/`0`, `"1"`/`"0"`, `true`/`false`; absent or `null` is false. */
const flag = v.pipe(
  v.optional(v.union([v.boolean(), v.number(), v.string(), v.null()]), false),
  v.transform((value): boolean => value === true || value === 1 || value === '1' || value === 'true'),
);

/**
 * Splits a folder path as TeamPass sends it in item records (ancestor titles joined by `/`,
 * escaped), decoded. A title that itself holds a `/` splits in two: TeamPass's answer cannot tell;
 * the folder tree has the exact titles.
 *
 * @param path The path text.
 * @returns The titles, root first.
 */
export function splitTeamPassPath(path: string): string[] {
  return path === '' ? [] : path.split('/').map(decodeTeamPassEntities);
}

/**
 * Splits TeamPass's tags (`"db, prod"`, or `null` for none), decoded.
 *
 * @param tags The tags text.
 * @returns The tags.
 */
export function splitTeamPassTags(tags: string): string[] {
  return tags
    .split(',')
    .map((tag) => decodeTeamPassEntities(tag.trim()))
    .filter((tag) => tag !== '');
}

/** The item record of `item/get` and `item/inFolders`, as sent. */
export const TeamPass3RawItemSchema = v.looseObject({
  id,
  label: text,
  description: optionalText,
  pwd: optionalText,
  url: optionalText,
  login: optionalText,
  email: optionalText,
  viewed_no: integer,
  fa_icon: optionalText,
  inactif: flag,
  perso: flag,
  id_tree: id,
  folder_label: optionalText,
  path: optionalText,
  totp: optionalText,
  totp_algorithm: optionalText,
  totp_digits: integer,
  totp_period: integer,
  favicon_url: optionalText,
  tags: optionalText,
  anyone_can_modify: flag,
  fields: v.optional(v.array(v.unknown()), []),
});

/**
 * An item of `item/get` and `item/inFolders`: the label, login, folder title, path and tags
 * decoded; `password` is the decrypted password (`pwd`); `otp` says whether a TOTP secret is set
 * (the secret itself, which TeamPass sends in clear, stays in `raw`).
 */
export const TeamPass3ItemSchema = v.pipe(
  TeamPass3RawItemSchema,
  v.transform((raw) => ({
    id: raw.id,
    label: decodeTeamPassEntities(raw.label),
    description: decodeAntiXssBrackets(raw.description),
    password: raw.pwd,
    login: decodeTeamPassEntities(raw.login),
    email: raw.email,
    url: raw.url,
    folderId: raw.id_tree,
    folderTitle: decodeTeamPassEntities(raw.folder_label),
    /** The folder's path, root first, ending with the item's own folder. */
    path: [...splitTeamPassPath(raw.path), decodeTeamPassEntities(raw.folder_label)].filter(
      (title) => title !== '',
    ),
    tags: splitTeamPassTags(raw.tags),
    anyoneCanModify: raw.anyone_can_modify,
    otp: raw.totp !== '',
    personal: raw.perso,
    icon: raw.fa_icon,
    faviconUrl: raw.favicon_url,
    raw,
  })),
);

/** An item as TeamPass 3 answers it. */
export type TeamPass3Item = v.InferOutput<typeof TeamPass3ItemSchema>;

/** The body of `item/get` and `item/inFolders`: always an array. */
export const TeamPass3ItemListSchema = v.array(TeamPass3ItemSchema);

/** A record of `item/findByUrl` (no password). */
export const TeamPass3UrlMatchSchema = v.pipe(
  v.looseObject({
    id,
    label: escapedText,
    login: optionalEscapedText,
    url: optionalText,
    folder_id: id,
    has_otp: flag,
    favicon_url: optionalText,
  }),
  v.transform((raw) => ({
    id: raw.id,
    label: raw.label,
    login: raw.login,
    url: raw.url,
    folderId: raw.folder_id,
    otp: raw.has_otp,
    faviconUrl: raw.favicon_url,
    raw,
  })),
);

/** An item found by its URL. */
export type TeamPass3UrlMatch = v.InferOutput<typeof TeamPass3UrlMatchSchema>;

/** The body of `item/findByUrl`. */
export const TeamPass3UrlMatchListSchema = v.array(TeamPass3UrlMatchSchema);

/** The body of `item/getOtp`: the current code, zero-padded to its digits. */
export const TeamPass3OtpSchema = v.pipe(
  v.looseObject({
    otp_code: text,
    expires_in: integer,
    item_id: id,
    algorithm: optionalText,
    digits: v.optional(integer, 6),
    period: v.optional(integer, 30),
  }),
  v.transform((raw) => ({
    code: raw.otp_code.padStart(raw.digits, '0'),
    expiresIn: raw.expires_in,
    itemId: raw.item_id,
    algorithm: raw.algorithm,
    digits: raw.digits,
    period: raw.period,
  })),
);

/** A one-time code. */
export type TeamPass3Otp = v.InferOutput<typeof TeamPass3OtpSchema>;

/** The body of `item/allTags`, decoded. */
export const TeamPass3TagListSchema = v.array(escapedText);

/** A node of `folder/listFolders`' tree. */
export interface TeamPass3FolderNode {
  /** The folder id. */
  id: number;
  /** The title, decoded. */
  title: string;
  /** Whether the caller may open it; `false` for a folder shown only to lead to visible subfolders. */
  visible: boolean;
  /** The minimum password strength of its items (0, 20, 38, 48 or 60). */
  complexity: number;
  /** Subfolders. */
  children: TeamPass3FolderNode[];
}

/** A node of the folder tree, as sent: `childrens` (sic) holds the subfolders. */
export const TeamPass3FolderNodeSchema: v.GenericSchema<unknown, TeamPass3FolderNode> = v.pipe(
  v.looseObject({
    id,
    title: escapedText,
    isVisible: v.optional(flag, true),
    complexity: integer,
    childrens: v.optional(
      v.union([
        v.array(v.lazy(() => TeamPass3FolderNodeSchema)),
        v.pipe(
          v.record(
            v.string(),
            v.lazy(() => TeamPass3FolderNodeSchema),
          ),
          v.transform((value) => Object.values(value)),
        ),
      ]),
      [],
    ),
  }),
  v.transform(
    (raw): TeamPass3FolderNode => ({
      id: raw.id,
      title: raw.title,
      visible: raw.isVisible,
      complexity: raw.complexity,
      children: raw.childrens,
    }),
  ),
);

/** The body of `folder/listFolders`: the root level of the tree. */
export const TeamPass3FolderTreeSchema = v.array(TeamPass3FolderNodeSchema);

/** A record of `folder/writableFolders`: a folder the caller sees, with their right on it. */
export const TeamPass3WritableFolderSchema = v.pipe(
  v.looseObject({
    id,
    label: escapedText,
    level: integer,
    parent_id: v.optional(v.union([id, v.null()]), 0),
    position: integer,
    complexity: integer,
    is_readonly: flag,
    access_type: optionalText,
    can_create: flag,
    can_edit: flag,
    can_delete: flag,
    is_personal: flag,
    is_personal_root: flag,
    can_create_subfolder: flag,
    can_rename_folder: flag,
    can_move_folder: flag,
    can_delete_folder: flag,
  }),
  v.transform((raw) => ({
    id: raw.id,
    title: raw.label,
    level: raw.level,
    parentId: raw.parent_id ?? 0,
    position: raw.position,
    complexity: raw.complexity,
    readOnly: raw.is_readonly,
    accessType: parseRight(raw.access_type) satisfies AccessType,
    canCreate: raw.can_create,
    canEdit: raw.can_edit,
    canDelete: raw.can_delete,
    personal: raw.is_personal,
    personalRoot: raw.is_personal_root,
    canCreateSubfolder: raw.can_create_subfolder,
    canRenameFolder: raw.can_rename_folder,
    canMoveFolder: raw.can_move_folder,
    canDeleteFolder: raw.can_delete_folder,
    raw,
  })),
);

/** A folder of `folder/writableFolders`. */
export type TeamPass3WritableFolder = v.InferOutput<typeof TeamPass3WritableFolderSchema>;

/** The body of `folder/writableFolders`, in tree order. */
export const TeamPass3WritableFolderListSchema = v.array(TeamPass3WritableFolderSchema);

/** The body of `authorize` and `authorizeToken`: the JWT and the server's version. */
export const TeamPass3AuthorizeResultSchema = v.pipe(
  v.looseObject({
    token: v.pipe(v.string(), v.nonEmpty('Expected a token')),
    teampass_version: optionalText,
  }),
  v.transform((raw) => ({ token: raw.token, version: raw.teampass_version })),
);

/** The body of `item/create`: `{"error":false,"message":"Item added successfully","newId":7}`. */
export const TeamPass3ItemCreatedSchema = v.pipe(
  v.looseObject({ newId: id, message: optionalText }),
  v.transform((raw) => ({ id: raw.newId, message: raw.message })),
);

/** The body of `item/update` and `item/delete`: `{"error":false,"message":…,"item_id":7}`. */
export const TeamPass3ItemChangedSchema = v.pipe(
  v.looseObject({ item_id: id, message: optionalText }),
  v.transform((raw) => ({ id: raw.item_id, message: raw.message })),
);

/** The body of `folder/create`: `{"error":false,"newId":8}`. */
export const TeamPass3FolderCreatedSchema = v.pipe(
  v.looseObject({ newId: id }),
  v.transform((raw) => ({ id: raw.newId })),
);

/** The body of `folder/update`: `{"error":false,"message":"Folder updated","id":5}`. */
export const TeamPass3FolderUpdatedSchema = v.pipe(
  v.looseObject({ id, message: optionalText }),
  v.transform((raw) => ({ id: raw.id, message: raw.message })),
);

/** The body of `folder/delete`: the subtree's folder ids and how many items went to the bin. */
export const TeamPass3FolderDeletedSchema = v.pipe(
  v.looseObject({
    deleted_folders: v.optional(v.array(id), []),
    deleted_items_count: integer,
    message: optionalText,
  }),
  v.transform((raw) => ({
    folderIds: raw.deleted_folders,
    deletedItems: raw.deleted_items_count,
    message: raw.message,
  })),
);

/** The body of `auth/logout`: `{"error":false,"message":"Session revoked"}`. */
export const TeamPass3MessageSchema = v.pipe(
  v.looseObject({ message: optionalText }),
  v.transform((raw) => ({ message: raw.message })),
);

/** The parts of `openapi.json` that identify a TeamPass 3 server. */
export const TeamPass3OpenApiSchema = v.looseObject({
  openapi: text,
  info: v.looseObject({ title: text, version: optionalText }),
});

/**
 * An RFC 9457 problem as TeamPass 3 sends it: `{type, title, status, detail, error}` (`error`
 * repeats `detail` for older clients).
 */
export const TeamPass3ProblemSchema = v.pipe(
  v.looseObject({
    type: optionalText,
    title: optionalText,
    status: v.optional(integer),
    detail: v.optional(text),
    error: v.optional(text),
  }),
  v.check((raw) => raw.detail !== undefined || raw.error !== undefined, 'Expected a detail or an error'),
  v.transform((raw) => ({
    title: raw.title,
    status: raw.status,
    detail: raw.detail ?? raw.error ?? raw.title,
  })),
);

/** A problem, parsed. */
export type TeamPass3Problem = v.InferOutput<typeof TeamPass3ProblemSchema>;

/** The claims of a TeamPass 3 token the client reads: who signed in, with which API permissions, until when. */
export const TeamPass3ClaimsSchema = v.pipe(
  v.looseObject({
    exp: v.number(),
    iat: v.optional(v.number()),
    id,
    username: optionalText,
    is_admin: flag,
    is_manager: flag,
    user_can_create_root_folder: flag,
    allowed_to_create: flag,
    allowed_to_read: flag,
    allowed_to_update: flag,
    allowed_to_delete: flag,
  }),
  v.transform((raw) => ({
    /** When the token expires, in ms since the epoch. */
    expiresAt: raw.exp * 1000,
    /** When it was issued, in ms since the epoch. */
    issuedAt: raw.iat === undefined ? undefined : raw.iat * 1000,
    userId: raw.id,
    login: raw.username,
    admin: raw.is_admin,
    manager: raw.is_manager,
    canCreateRootFolder: raw.user_can_create_root_folder,
    /** The API permissions when the token was issued (TeamPass checks the current ones on every call). */
    api: {
      create: raw.allowed_to_create,
      read: raw.allowed_to_read,
      update: raw.allowed_to_update,
      delete: raw.allowed_to_delete,
    },
  })),
);

/** What a token says about its user. */
export type TeamPass3Claims = v.InferOutput<typeof TeamPass3ClaimsSchema>;
