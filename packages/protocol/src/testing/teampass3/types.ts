/**
 * The types of the TeamPass 3 fake: its settings, the plain description it is seeded from, and
 * the records it keeps.
 *
 * @module
 */

/** A folder right as TeamPass's roles grant it. */
export type TeamPass3Right = 'W' | 'ND' | 'NE' | 'NDNE' | 'R';

/**
 * A folder in a seed or a control call: its id, or its path of titles joined by `/` as typed
 * (`Shared/SharedSub`); `~alice` is alice's personal folder (`~alice/Notes` one inside it).
 */
export type TeamPass3FolderRef = number | string;

/** The four per-user API permissions (admin → API page). */
export interface TeamPass3ApiFlags {
  /** `allowed_to_create`. */
  create: boolean;
  /** `allowed_to_read`. */
  read: boolean;
  /** `allowed_to_update`. */
  update: boolean;
  /** `allowed_to_delete`. */
  delete: boolean;
}

/** The instance settings the API reads (TeamPass's names in the comments). */
export interface TeamPass3Settings {
  /** `api`: the API is on. Off, `/authorize` answers 503; tokens already issued keep working. */
  api: boolean;
  /** `api_require_https`: refuse plain HTTP (honours `X-Forwarded-Proto: https`). Default off (on in new installs). */
  requireHttps: boolean;
  /** `api_rate_limit_per_minute`: sliding window per user and per client IP; 0 is off (the default; 120 in new installs). */
  rateLimitPerMinute: number;
  /** `api_token_duration`: token lifetime in minutes, clamped to 1–1440. Default 60. */
  tokenDurationMinutes: number;
  /** `extension_token_all_auth_types`: `/authorizeToken` accepts personal access tokens. Default off. */
  personalAccessTokens: boolean;
  /** `enable_user_can_create_folders`: users may create (sub)folders without being managers. Default off. */
  userCanCreateFolders: boolean;
  /** `subfolder_rights_as_parent`: a new subfolder copies its parent's role rights. Default off. */
  subfolderRightsAsParent: boolean;
  /** `duplicate_item`: items may share a label. Default off. */
  duplicateItems: boolean;
  /** `duplicate_folder`: shared folders may share a title. Default off. */
  duplicateFolders: boolean;
  /** `create_item_without_password`: items may be created without a password. Default off. */
  createItemWithoutPassword: boolean;
  /** `pwd_maximum_length`: the longest item password, in bytes. Default 40. */
  passwordMaximumLength: number;
  /** `nb_bad_authentication`: failed sign-ins of one login before it is locked; 0 is off (the install default). */
  failedSignInsPerLogin: number;
  /** `nb_bad_authentication_by_ip`: failed sign-ins from one IP before it is locked. Default 30. */
  failedSignInsPerIp: number;
  /** `bruteforce_lock_duration`: how long a lock lasts, in minutes. Default 10. */
  lockMinutes: number;
  /** Take the client IP from `X-Forwarded-For` (TeamPass's trusted reverse-proxy mode). Default off. */
  trustForwardedFor: boolean;
  /** The version the fake reports. Default `3.2.1.5`. */
  version: string;
}

/** A folder of a seed. */
export interface TeamPass3SeedFolder {
  /** The id; the next free one when absent. */
  id?: number | undefined;
  /** The title as typed (stored escaped, as TeamPass does). */
  title: string;
  /** The parent; the root when absent (or the parent of `children`). */
  parent?: TeamPass3FolderRef | undefined;
  /** The minimum password strength of its items: 0, 20, 38, 48 or 60. Default 0. */
  complexity?: number | undefined;
  /** Subfolders. */
  children?: readonly TeamPass3SeedFolder[] | undefined;
}

/** A role of a seed. */
export interface TeamPass3SeedRole {
  /** The id; the next free one when absent. */
  id?: number | undefined;
  /** The name users refer to. */
  name: string;
  /** The right it grants per folder (keys are folder paths or ids). */
  folders?: Readonly<Record<string, TeamPass3Right>> | undefined;
}

/** A user of a seed. */
export interface TeamPass3SeedUser {
  /** The id; the next free one when absent. */
  id?: number | undefined;
  /** The login. */
  login: string;
  /** The password (compared after `trim()`, as TeamPass does). */
  password: string;
  /** The personal API key. */
  apiKey: string;
  /** The e-mail address. */
  email?: string | undefined;
  /** The names of the roles. */
  roles?: readonly string[] | undefined;
  /** An administrator: every shared folder is visible. */
  admin?: boolean | undefined;
  /** A manager (`gestionnaire`). */
  manager?: boolean | undefined;
  /** `can_create_root_folder`. */
  canCreateRootFolder?: boolean | undefined;
  /** `can_manage_all_users`. */
  canManageAllUsers?: boolean | undefined;
  /** The account is disabled. */
  disabled?: boolean | undefined;
  /** `teampass_api.enabled`: the user may use the API. Default on. */
  apiEnabled?: boolean | undefined;
  /** The API permissions; each defaults to on. */
  api?: Partial<TeamPass3ApiFlags> | undefined;
  /** The user has a personal folder (`~login`). */
  personalFolder?: boolean | undefined;
  /** Folders granted to the user directly (always `W`). */
  folders?: readonly TeamPass3FolderRef[] | undefined;
  /** Folders denied to the user whatever the roles say. */
  forbiddenFolders?: readonly TeamPass3FolderRef[] | undefined;
}

/** A TOTP configuration of an item. */
export interface TeamPass3SeedTotp {
  /** The Base32 secret. */
  secret: string;
  /** `sha1` (default), `sha256` or `sha512`. */
  algorithm?: string | undefined;
  /** 6 (default) or 8. */
  digits?: number | undefined;
  /** The period in seconds. Default 30. */
  period?: number | undefined;
  /** Whether the code may be read. Default on. */
  enabled?: boolean | undefined;
}

/** An item of a seed. */
export interface TeamPass3SeedItem {
  /** The id; the next free one when absent. */
  id?: number | undefined;
  /** The label as typed (stored escaped). */
  label: string;
  /** The folder. */
  folder: TeamPass3FolderRef;
  /** The password, stored as sent. */
  password: string;
  /** The login as typed (stored escaped). */
  login?: string | undefined;
  /** The e-mail address. */
  email?: string | undefined;
  /** The URL. */
  url?: string | undefined;
  /** The description, stored as sent. */
  description?: string | undefined;
  /** Tags, as a list or as TeamPass takes them (`"a b"`, `"a,b"`). */
  tags?: string | readonly string[] | undefined;
  /** Whether anyone may modify it. */
  anyoneCanModify?: boolean | undefined;
  /** A TOTP secret, or a whole configuration. */
  totp?: string | TeamPass3SeedTotp | undefined;
  /**
   * Custom field values, as `item/get` answers them (`{id, title, type, masked, value}`, the
   * shape of the API's `CustomField`).
   */
  fields?: readonly { id: number; title: string; type: string; masked: number; value: string }[] | undefined;
  /** Already deleted (in the recycle bin). */
  deleted?: boolean | undefined;
}

/** A plain description of a TeamPass instance. */
export interface TeamPass3Seed {
  /** The folders, in id order unless ids are given. */
  folders?: readonly TeamPass3SeedFolder[] | undefined;
  /** The roles. */
  roles?: readonly TeamPass3SeedRole[] | undefined;
  /** The users. */
  users?: readonly TeamPass3SeedUser[] | undefined;
  /** The items. */
  items?: readonly TeamPass3SeedItem[] | undefined;
}

/** A folder as the fake keeps it. */
export interface TeamPass3StoredFolder {
  /** The id. */
  id: number;
  /** The parent id, 0 for a root folder. */
  parentId: number;
  /** The title as stored (escaped). */
  title: string;
  /** Inside a personal tree. */
  personal: boolean;
  /** The minimum password strength (0, 20, 38, 48, 60). */
  complexity: number;
  /** The renewal period in months. */
  renewalPeriod: number;
  /** Creating items needs no complexity check. */
  createAuthWithout: number;
  /** Editing items needs no complexity check. */
  editAuthWithout: number;
  /** The icon. */
  icon: string;
  /** The icon when open. */
  iconSelected: string;
}

/** An item as the fake keeps it. */
export interface TeamPass3StoredItem {
  /** The id. */
  id: number;
  /** The label as stored (escaped). */
  label: string;
  /** The description. */
  description: string;
  /** The password in clear. */
  password: string;
  /** The login as stored (escaped). */
  login: string;
  /** The e-mail address. */
  email: string;
  /** The URL. */
  url: string;
  /** The folder id. */
  folderId: number;
  /** The tags, in the order they were stored (lower case, escaped). */
  tags: string[];
  /** 0 or 1. */
  anyoneCanModify: number;
  /** The Font Awesome icon. */
  icon: string;
  /** `favicon_url`: `""` without a URL, `null` when the URL's host does not resolve (the fake resolves none). */
  faviconUrl: string | null;
  /** The TOTP configuration. */
  totp: (TeamPass3StoredTotp & { enabled: boolean }) | undefined;
  /** In a personal folder. */
  personal: boolean;
  /** When it was deleted (seconds), for items in the recycle bin. */
  deletedAt: number | undefined;
  /** How often it was shown (TeamPass does not count API reads). */
  viewedNo: number;
  /** Custom field values, as seeded (`item/create` and `item/update` set none). */
  fields: unknown[];
}

/** A normalised TOTP configuration. */
export interface TeamPass3StoredTotp {
  /** The Base32 secret. */
  secret: string;
  /** The algorithm. */
  algorithm: 'sha1' | 'sha256' | 'sha512';
  /** The code length. */
  digits: number;
  /** The period in seconds. */
  period: number;
}

/** A user as the fake keeps it. */
export interface TeamPass3StoredUser {
  /** The id. */
  id: number;
  /** The login. */
  login: string;
  /** The password. */
  password: string;
  /** The personal API key. */
  apiKey: string;
  /** The e-mail address. */
  email: string;
  /** Role ids. */
  roleIds: number[];
  /** Administrator. */
  admin: boolean;
  /** Manager. */
  manager: boolean;
  /** `can_create_root_folder`. */
  canCreateRootFolder: boolean;
  /** `can_manage_all_users`. */
  canManageAllUsers: boolean;
  /** Disabled account. */
  disabled: boolean;
  /** API access enabled. */
  apiEnabled: boolean;
  /** The API permissions. */
  api: TeamPass3ApiFlags;
  /** Has a personal folder. */
  personalFolder: boolean;
  /** Folders granted directly. */
  directFolders: number[];
  /** Folders denied. */
  forbiddenFolders: number[];
}

/** A role as the fake keeps it. */
export interface TeamPass3StoredRole {
  /** The id. */
  id: number;
  /** The name. */
  name: string;
  /** Folder id → right. */
  folders: Map<number, TeamPass3Right>;
}

/** An API session (one per token, keyed by its `jti`). */
export interface TeamPass3Session {
  /** The token id. */
  jti: string;
  /** The user. */
  userId: number;
  /** The token itself (for tests that check it never leaks). */
  token: string;
  /** When it was issued (seconds). */
  issuedAt: number;
  /** When it expires (seconds). */
  expiresAt: number;
  /** When it was revoked (seconds). */
  revokedAt: number | undefined;
}

/** One request as the fake answered it. */
export interface TeamPass3RequestRecord {
  /** The method. */
  method: string;
  /** The URL path and query as received. */
  url: string;
  /** The request headers. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body as received. */
  body: string;
  /** The status answered. */
  status: number;
  /** The login of the token's user, when a valid token came with it. */
  login: string | undefined;
}
