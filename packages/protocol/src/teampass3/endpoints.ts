/**
 * TeamPass 3's REST API as ONE typed table: every operation Vaultline uses, with its method,
 * path, where its parameters go, the schema of what it takes and of what it answers, whether the
 * answer carries secrets, whether it reads or writes, which per-user API permission TeamPass
 * checks first, and how it pages. The TeamPass 3 caller is derived from it.
 *
 * Not in the table: `user/list` (administrators only, and a 500 in 3.2.1.5),
 * `misc/refreshExtensionSettings` (it hands any user the browser extension's key, which Vaultline
 * never needs), file attachments (TeamPass 3 has none), anything about another user.
 *
 * @see ./README.md
 * @module
 */

import * as v from 'valibot';
import { escapeLikeTeamPass } from './html.ts';
import {
  TeamPass3AuthorizeResultSchema,
  TeamPass3FolderCreatedSchema,
  TeamPass3FolderDeletedSchema,
  TeamPass3FolderTreeSchema,
  TeamPass3FolderUpdatedSchema,
  TeamPass3ItemChangedSchema,
  TeamPass3ItemCreatedSchema,
  TeamPass3ItemListSchema,
  TeamPass3MessageSchema,
  TeamPass3OpenApiSchema,
  TeamPass3OtpSchema,
  TeamPass3TagListSchema,
  TeamPass3UrlMatchListSchema,
  TeamPass3WritableFolderListSchema,
} from './schemas.ts';

/** One of TeamPass's four per-user API permissions. */
export type TeamPass3Permission = 'create' | 'read' | 'update' | 'delete';

/** How an operation pages: `limit`/`offset` parameters and the `X-Total-Count` header. */
export interface TeamPass3Pagination {
  /** The largest `limit` the server honours (it silently caps larger ones); none for the folder tree. */
  readonly maxLimit: number | undefined;
}

/** One row of the table. */
export interface TeamPass3EndpointDefinition {
  /** TeamPass's name, `<controller>/<action>`. */
  readonly operation: string;
  /** The HTTP method. */
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path after the API root (`/api/index.php`). */
  readonly path: string;
  /** Where the parameters go: the query string, a JSON body, or nowhere. */
  readonly params: 'query' | 'body' | 'none';
  /** The parameters the caller takes; the schema's output is what is sent. */
  readonly input: v.GenericSchema;
  /** The schema of a successful answer's body. */
  readonly schema: v.GenericSchema;
  /** `bearer`: needs the JWT; `none`: a sign-in or public route. */
  readonly auth: 'bearer' | 'none';
  /** Whether the operation reads or writes: reads are retried on network errors, writes never. */
  readonly access: 'read' | 'write';
  /** Whether a successful answer carries secrets (passwords, TOTP secrets or codes, tokens, keys). */
  readonly secret: boolean;
  /** The API permission TeamPass checks before anything else (`checkUSerCRUDRights`). */
  readonly permission: TeamPass3Permission | undefined;
  /** How it pages, when it does. */
  readonly pagination: TeamPass3Pagination | undefined;
  /** One-line summary for docs. */
  readonly summary: string;
}

const nonEmpty = v.pipe(v.string(), v.nonEmpty('Expected a non-empty text'));
const itemId = v.pipe(v.number(), v.safeInteger(), v.minValue(1, 'Expected an id of 1 or more'));
const folderParent = v.pipe(
  v.number(),
  v.safeInteger(),
  v.minValue(0, 'Expected a folder id, or 0 for the root'),
);
const count = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
const flagValue = v.pipe(
  v.union([v.boolean(), v.picklist([0, 1])]),
  v.transform((value): 0 | 1 => (value === true || value === 1 ? 1 : 0)),
);
const complexity = v.picklist([0, 20, 38, 48, 60], 'Expected a complexity of 0, 20, 38, 48 or 60');
const right = v.picklist(['W', 'ND', 'NE', 'NDNE', 'R']);
const tags = v.pipe(
  v.union([v.string(), v.array(v.string())]),
  v.transform((value) => (typeof value === 'string' ? value : value.join(' '))),
);
const page = {
  limit: v.optional(v.pipe(count, v.maxValue(500, 'Expected a limit of at most 500'))),
  offset: v.optional(count),
};
const noInput = v.object({});

/** The optional item fields both `item/create` and `item/update` take. */
const itemExtras = {
  description: v.optional(v.string()),
  icon: v.optional(v.string()),
  totp: v.optional(v.string()),
  totp_algorithm: v.optional(v.picklist(['sha1', 'sha256', 'sha512'])),
  totp_digits: v.optional(v.picklist([6, 8])),
  totp_period: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(86400))),
};

/** Search by label or description; the label is escaped the way TeamPass stores labels, so that it matches. */
const searchInput = v.union([
  v.pipe(
    v.object({ label: nonEmpty, like: v.optional(v.boolean()), ...page }),
    v.transform(({ label, like, ...rest }) => ({
      label: escapeLikeTeamPass(label),
      like: like ? 1 : undefined,
      ...rest,
    })),
  ),
  v.pipe(
    v.object({ description: nonEmpty, like: v.optional(v.boolean()), ...page }),
    v.transform(({ like, ...rest }) => ({ ...rest, like: like ? 1 : undefined })),
  ),
]);

/**
 * Every operation of TeamPass 3's API that Vaultline uses.
 *
 * @see ./README.md
 */
export const teampass3Endpoints = {
  authorize: {
    operation: 'authorize',
    method: 'POST',
    path: '/authorize',
    params: 'body',
    input: v.object({ login: nonEmpty, password: nonEmpty, apikey: nonEmpty }),
    schema: TeamPass3AuthorizeResultSchema,
    auth: 'none',
    access: 'write',
    secret: true,
    permission: undefined,
    pagination: undefined,
    summary: 'Signs in with login, password and API key; answers a JWT.',
  },
  authorizeToken: {
    operation: 'authorizeToken',
    method: 'POST',
    path: '/authorizeToken',
    params: 'body',
    input: v.object({ login: nonEmpty, token: nonEmpty }),
    schema: TeamPass3AuthorizeResultSchema,
    auth: 'none',
    access: 'write',
    secret: true,
    permission: undefined,
    pagination: undefined,
    summary: 'Signs in with a personal access token, where the site allows it; answers a JWT.',
  },
  logout: {
    operation: 'auth/logout',
    method: 'POST',
    path: '/auth/logout',
    params: 'none',
    input: noInput,
    schema: TeamPass3MessageSchema,
    auth: 'bearer',
    access: 'write',
    secret: false,
    permission: undefined,
    pagination: undefined,
    summary: "Revokes the token's own session; other tokens of the user keep working.",
  },
  openApi: {
    operation: 'openapi.json',
    method: 'GET',
    path: '/openapi.json',
    params: 'none',
    input: noInput,
    schema: TeamPass3OpenApiSchema,
    auth: 'none',
    access: 'read',
    secret: false,
    permission: undefined,
    pagination: undefined,
    summary: 'The OpenAPI document, without a token; its title names a TeamPass 3 server.',
  },
  listFolders: {
    operation: 'folder/listFolders',
    method: 'GET',
    path: '/folder/listFolders',
    params: 'query',
    input: v.object({ ...page, limit: v.optional(count) }),
    schema: TeamPass3FolderTreeSchema,
    auth: 'bearer',
    access: 'read',
    secret: false,
    permission: 'read',
    pagination: { maxLimit: undefined },
    summary: "The caller's folders as a tree; pages over the root level.",
  },
  writableFolders: {
    operation: 'folder/writableFolders',
    method: 'GET',
    path: '/folder/writableFolders',
    params: 'none',
    input: noInput,
    schema: TeamPass3WritableFolderListSchema,
    auth: 'bearer',
    access: 'read',
    secret: false,
    permission: 'read',
    pagination: undefined,
    summary: "The caller's folders, flat in tree order, with their right (R, W, ND, NE, NDNE) on each.",
  },
  createFolder: {
    operation: 'folder/create',
    method: 'POST',
    path: '/folder/create',
    params: 'body',
    input: v.object({
      title: nonEmpty,
      parent_id: folderParent,
      complexity,
      duration: v.optional(count),
      create_auth_without: v.optional(flagValue),
      edit_auth_without: v.optional(flagValue),
      icon: v.optional(v.string()),
      icon_selected: v.optional(v.string()),
      access_rights: v.optional(right),
    }),
    schema: TeamPass3FolderCreatedSchema,
    auth: 'bearer',
    access: 'write',
    secret: false,
    permission: 'create',
    pagination: undefined,
    summary: "Creates a folder (the caller's roles get `access_rights`, W by default).",
  },
  updateFolder: {
    operation: 'folder/update',
    method: 'PUT',
    path: '/folder/update',
    params: 'body',
    input: v.object({
      id: itemId,
      title: v.optional(nonEmpty),
      parent_id: v.optional(folderParent),
      complexity: v.optional(complexity),
      duration: v.optional(count),
      create_auth_without: v.optional(flagValue),
      edit_auth_without: v.optional(flagValue),
      icon: v.optional(v.string()),
      icon_selected: v.optional(v.string()),
    }),
    schema: TeamPass3FolderUpdatedSchema,
    auth: 'bearer',
    access: 'write',
    secret: false,
    permission: 'update',
    pagination: undefined,
    summary: 'Renames or moves a folder, or changes its settings.',
  },
  deleteFolder: {
    operation: 'folder/delete',
    method: 'DELETE',
    path: '/folder/delete',
    params: 'query',
    input: v.object({ id: itemId }),
    schema: TeamPass3FolderDeletedSchema,
    auth: 'bearer',
    access: 'write',
    secret: false,
    permission: 'delete',
    pagination: undefined,
    summary: 'Deletes a folder and its subfolders; their items go to the recycle bin.',
  },
  getItem: {
    operation: 'item/get',
    method: 'GET',
    path: '/item/get',
    params: 'query',
    input: v.object({ id: itemId }),
    schema: TeamPass3ItemListSchema,
    auth: 'bearer',
    access: 'read',
    secret: true,
    permission: 'read',
    pagination: undefined,
    summary: 'Reads one item by id: a list of one, or an empty list when unknown or not permitted.',
  },
  searchItems: {
    operation: 'item/get',
    method: 'GET',
    path: '/item/get',
    params: 'query',
    input: searchInput,
    schema: TeamPass3ItemListSchema,
    auth: 'bearer',
    access: 'read',
    secret: true,
    permission: 'read',
    pagination: { maxLimit: 500 },
    summary:
      "Finds items by label or description (exact, or containing with `like`) in all of the caller's folders.",
  },
  itemsInFolders: {
    operation: 'item/inFolders',
    method: 'GET',
    path: '/item/inFolders',
    params: 'query',
    input: v.pipe(
      v.object({
        folders: v.pipe(v.array(itemId), v.minLength(1, 'Expected at least one folder id')),
        ...page,
      }),
      v.transform(({ folders, ...rest }) => ({ folders: folders.join(','), ...rest })),
    ),
    schema: TeamPass3ItemListSchema,
    auth: 'bearer',
    access: 'read',
    secret: true,
    permission: 'read',
    pagination: { maxLimit: 500 },
    summary: 'Reads the items of folders (those the caller cannot see are dropped; none left is a 400).',
  },
  findByUrl: {
    operation: 'item/findByUrl',
    method: 'GET',
    path: '/item/findByUrl',
    params: 'query',
    // TeamPass percent-decodes the value a second time: encode it once more so it arrives whole.
    input: v.object({
      url: v.pipe(
        nonEmpty,
        v.transform((url: string) => encodeURIComponent(url)),
      ),
    }),
    schema: TeamPass3UrlMatchListSchema,
    auth: 'bearer',
    access: 'read',
    secret: false,
    permission: 'read',
    pagination: undefined,
    summary: 'Finds items whose URL contains the given text (no passwords in the answer).',
  },
  getOtp: {
    operation: 'item/getOtp',
    method: 'GET',
    path: '/item/getOtp',
    params: 'query',
    input: v.object({ id: itemId }),
    schema: TeamPass3OtpSchema,
    auth: 'bearer',
    access: 'read',
    secret: true,
    permission: 'read',
    pagination: undefined,
    summary: "An item's current TOTP code and the seconds it stays valid.",
  },
  allTags: {
    operation: 'item/allTags',
    method: 'GET',
    path: '/item/allTags',
    params: 'none',
    input: noInput,
    schema: TeamPass3TagListSchema,
    auth: 'bearer',
    access: 'read',
    secret: false,
    permission: 'read',
    pagination: undefined,
    summary: 'Every tag of the instance, sorted (TeamPass includes tags of items the caller cannot see).',
  },
  createItem: {
    operation: 'item/create',
    method: 'POST',
    path: '/item/create',
    params: 'body',
    // TeamPass refuses a create without all eight base fields: the optional ones are sent empty.
    input: v.object({
      label: nonEmpty,
      folder_id: itemId,
      password: v.string(),
      login: v.optional(v.string(), ''),
      email: v.optional(v.string(), ''),
      url: v.optional(v.string(), ''),
      tags: v.optional(tags, ''),
      anyone_can_modify: v.optional(flagValue, 0),
      ...itemExtras,
    }),
    schema: TeamPass3ItemCreatedSchema,
    auth: 'bearer',
    access: 'write',
    secret: false,
    permission: 'create',
    pagination: undefined,
    summary: 'Creates an item; a label already used by another item is refused.',
  },
  updateItem: {
    operation: 'item/update',
    method: 'PUT',
    path: '/item/update',
    params: 'body',
    input: v.object({
      id: itemId,
      label: v.optional(nonEmpty),
      password: v.optional(v.string()),
      login: v.optional(v.string()),
      email: v.optional(v.string()),
      url: v.optional(v.string()),
      tags: v.optional(tags),
      anyone_can_modify: v.optional(flagValue),
      folder_id: v.optional(itemId),
      ...itemExtras,
    }),
    schema: TeamPass3ItemChangedSchema,
    auth: 'bearer',
    access: 'write',
    secret: false,
    permission: 'update',
    pagination: undefined,
    summary: 'Changes the given fields of an item, or moves it (an empty password leaves it as it is).',
  },
  deleteItem: {
    operation: 'item/delete',
    method: 'DELETE',
    path: '/item/delete',
    params: 'query',
    input: v.object({ id: itemId }),
    schema: TeamPass3ItemChangedSchema,
    auth: 'bearer',
    access: 'write',
    secret: false,
    permission: 'delete',
    pagination: undefined,
    summary: 'Moves an item to the recycle bin (deleting it again answers success again).',
  },
} as const satisfies Record<string, TeamPass3EndpointDefinition>;

/** The table's type. */
export type TeamPass3Endpoints = typeof teampass3Endpoints;

/** The name of an operation, e.g. `getItem`. */
export type TeamPass3EndpointName = keyof TeamPass3Endpoints;

/** Every operation name, in table order. */
export const TEAMPASS3_ENDPOINT_NAMES: readonly TeamPass3EndpointName[] = Object.keys(
  teampass3Endpoints,
) as TeamPass3EndpointName[];

/** What an operation takes. */
export type TeamPass3Input<K extends TeamPass3EndpointName> = v.InferInput<TeamPass3Endpoints[K]['input']>;

/** What an operation answers, parsed. */
export type TeamPass3Output<K extends TeamPass3EndpointName> = v.InferOutput<TeamPass3Endpoints[K]['schema']>;

/** The operations that page. */
export type TeamPass3PagedName = {
  [K in TeamPass3EndpointName]: TeamPass3Endpoints[K]['pagination'] extends TeamPass3Pagination ? K : never;
}[TeamPass3EndpointName];
