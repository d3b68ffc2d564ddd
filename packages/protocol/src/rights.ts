/**
 * The one table of folder rights: what each right allows on the items of a folder, the union of
 * several rights (a user with several roles), the spellings servers send, and the words people
 * read. Every part of Vaultline (server, access checker, VS Code, Slack, CLI) asks this module;
 * none spells out what a right allows.
 *
 * TeamPass's meanings (its roles screen): `W` write; `ND` write but no delete; `NE` write but no
 * edit, so it may add and delete; `NDNE` write with neither edit nor delete, so it may add; `R`
 * read only. `NEND` is another spelling of `NDNE`.
 *
 * Servers that also enforce per-user API permissions (TeamPass 3: create, read, update, delete,
 * checked before the folder right) are folded in by {@link foldApiPermissions}: a permission that
 * is off removes what it allows, and the folder's right becomes the strongest right of the table
 * that allows nothing more (see its TSDoc for the whole rule).
 *
 * @see ../../../docs/teampass.md
 * @module
 */

/** The rights a folder can grant, most permissive first. */
export const ACCESS_TYPES = ['W', 'ND', 'NE', 'NDNE', 'R'] as const;

/**
 * A folder right: `W` write, `ND` write but no delete, `NE` write but no edit, `NDNE` write with
 * neither, `R` read only. `none` stands for no right, or a value the core does not know, and
 * grants nothing.
 */
export type AccessType = (typeof ACCESS_TYPES)[number] | 'none';

/** What a right allows on the items of a folder. */
export interface Permissions {
  /** Read the item, its password and its attachments. */
  readonly read: boolean;
  /** Add an item (and upload an attachment to a new item). */
  readonly add: boolean;
  /** Change an existing item (values, attachments). */
  readonly edit: boolean;
  /** Delete an item. */
  readonly delete: boolean;
}

/** One row of the table. */
export interface RightDefinition extends Permissions {
  /** The right's code as servers send it. */
  readonly code: AccessType;
  /** What people read for it, lower case ("read only", "edit, no delete"). */
  readonly words: string;
}

/** Every right, with what it allows and the words people read for it. */
export const RIGHTS: Readonly<Record<AccessType, RightDefinition>> = {
  W: { code: 'W', read: true, add: true, edit: true, delete: true, words: 'full access' },
  ND: { code: 'ND', read: true, add: true, edit: true, delete: false, words: 'edit, no delete' },
  NE: { code: 'NE', read: true, add: true, edit: false, delete: true, words: 'add and delete, no edit' },
  NDNE: {
    code: 'NDNE',
    read: true,
    add: true,
    edit: false,
    delete: false,
    words: 'add only, no edit or delete',
  },
  R: { code: 'R', read: true, add: false, edit: false, delete: false, words: 'read only' },
  none: { code: 'none', read: false, add: false, edit: false, delete: false, words: 'no access' },
};

/** Other spellings servers send for a right. */
const ALIASES: Readonly<Record<string, AccessType>> = { NEND: 'NDNE' };

/**
 * Reads a right as a server sends it: the five codes, `NEND` as `NDNE`, anything else as `none`.
 * Case and surrounding spaces are not forgiven: an unknown value grants nothing.
 *
 * @param value The value from the wire.
 * @returns The right.
 */
export function parseRight(value: unknown): AccessType {
  if (typeof value !== 'string') return 'none';
  if ((ACCESS_TYPES as readonly string[]).includes(value)) return value as AccessType;
  return ALIASES[value] ?? 'none';
}

/**
 * What a right allows.
 *
 * @param right The right; absent is no right.
 * @returns Its permissions.
 */
export function permissionsOf(right: AccessType | undefined): RightDefinition {
  return RIGHTS[right ?? 'none'];
}

/**
 * The right that allows exactly what a set of permissions allows, or the closest one that allows
 * no more. Reading is implied by any other permission.
 *
 * @param permissions The permissions.
 * @returns The right.
 */
export function rightOf(permissions: Permissions): AccessType {
  const { add, edit, delete: del } = permissions;
  if (edit && del) return 'W';
  if (edit) return 'ND';
  if (del) return 'NE';
  if (add) return 'NDNE';
  return permissions.read ? 'R' : 'none';
}

/**
 * The union of several rights (a user with several roles on one folder): what any of them
 * allows. `ND` and `NE` together give `W`.
 *
 * @param rights The rights.
 * @returns The right that allows all of it; `none` for no rights.
 */
export function unionOfRights(rights: Iterable<AccessType | undefined>): AccessType {
  let read = false;
  let add = false;
  let edit = false;
  let del = false;
  for (const right of rights) {
    const p = permissionsOf(right);
    read ||= p.read;
    add ||= p.add;
    edit ||= p.edit;
    del ||= p.delete;
  }
  return rightOf({ read, add, edit, delete: del });
}

/**
 * The words people read for a right ("read only"), for trees, tooltips and chat answers.
 *
 * @param right The right.
 * @returns The words, lower case.
 */
export function describeRight(right: AccessType | undefined): string {
  return permissionsOf(right).words;
}

/** Per-user API permissions a server enforces before folder rights (TeamPass 3's four flags). */
export interface ApiPermissions {
  /** May add items and folders. */
  readonly create: boolean;
  /** May read anything (off, every read is refused). */
  readonly read: boolean;
  /** May change items and folders. */
  readonly update: boolean;
  /** May delete items and folders. */
  readonly delete: boolean;
}

/**
 * The effective right on a folder when the server also enforces per-user API permissions
 * (TeamPass 3). The rule:
 *
 * 1. Start from what the folder's right allows (`permissionsOf`).
 * 2. A permission that is off removes what it allows: `create` off removes adding, `update` off
 *    editing, `delete` off deleting, `read` off everything (the server refuses every read, and a
 *    folder that cannot be read cannot be shown).
 * 3. The result is the strongest right of the table that allows nothing beyond what is left, so
 *    that apps never offer what the server will refuse. Every writing right of the table allows
 *    adding, so `create` off leaves `R` (read only) even where editing or deleting would still
 *    pass; `update` off turns `W` into `NE` and `ND` into `NDNE`; `delete` off turns `W` into `ND`
 *    and `NE` into `NDNE`.
 *
 * The server still decides: its refusal (403) is handled wherever an action is sent.
 *
 * @param right The folder's right.
 * @param api The user's API permissions.
 * @returns The right to show and check.
 * @example
 * ```ts
 * foldApiPermissions('W', { create: true, read: true, update: true, delete: false }); // 'ND'
 * ```
 */
export function foldApiPermissions(right: AccessType | undefined, api: ApiPermissions): AccessType {
  const granted = permissionsOf(right);
  const left: Permissions = {
    read: granted.read && api.read,
    add: granted.add && api.read && api.create,
    edit: granted.edit && api.read && api.update,
    delete: granted.delete && api.read && api.delete,
  };
  const within = (row: RightDefinition) =>
    (!row.read || left.read) &&
    (!row.add || left.add) &&
    (!row.edit || left.edit) &&
    (!row.delete || left.delete);
  return ACCESS_TYPES.find((code) => within(RIGHTS[code])) ?? 'none';
}
