/**
 * The data of the TeamPass 3 fake and TeamPass's rules over it: who sees which folder
 * (`buildUserFoldersList`, the per-user folder cache), the effective right on a folder
 * (`getFolderAccessLevelForUser`: least permissive role wins, `ND` + `NE` is `NDNE`, no role is
 * `W`), the folder tree in nested-set order, items, tags, sessions, sign-in failures and the rate
 * limit's buckets.
 *
 * @module
 */

import {
  collationCompare,
  phpFullSpecialChars,
  phpHtmlSpecialChars,
  phpSanitizeEmail,
  phpStripTags,
  phpTrim,
  xssClean,
} from './php.ts';
import { normalizeTotp } from './totp.ts';
import type {
  TeamPass3ApiFlags,
  TeamPass3FolderRef,
  TeamPass3Right,
  TeamPass3Seed,
  TeamPass3SeedFolder,
  TeamPass3SeedItem,
  TeamPass3Session,
  TeamPass3Settings,
  TeamPass3StoredFolder,
  TeamPass3StoredItem,
  TeamPass3StoredRole,
  TeamPass3StoredUser,
} from './types.ts';

/** TeamPass's settings as the fake starts with them. */
export const DEFAULT_SETTINGS: Readonly<TeamPass3Settings> = {
  api: true,
  requireHttps: false,
  rateLimitPerMinute: 0,
  tokenDurationMinutes: 60,
  personalAccessTokens: false,
  userCanCreateFolders: false,
  subfolderRightsAsParent: false,
  duplicateItems: false,
  duplicateFolders: false,
  createItemWithoutPassword: false,
  passwordMaximumLength: 40,
  failedSignInsPerLogin: 0,
  failedSignInsPerIp: 30,
  lockMinutes: 10,
  trustForwardedFor: false,
  version: '3.2.1.5',
};

/** The effective right on a folder, with what it allows on items. */
export interface FolderAccess {
  /** The right. */
  type: TeamPass3Right;
  /** May add items. */
  create: boolean;
  /** May edit items. */
  edit: boolean;
  /** May delete items. */
  delete: boolean;
}

const ACCESS: Readonly<Record<TeamPass3Right, FolderAccess>> = {
  W: { type: 'W', create: true, edit: true, delete: true },
  ND: { type: 'ND', create: true, edit: true, delete: false },
  NE: { type: 'NE', create: true, edit: false, delete: true },
  NDNE: { type: 'NDNE', create: true, edit: false, delete: false },
  R: { type: 'R', create: false, edit: false, delete: false },
};

const LEVELS: Readonly<Record<TeamPass3Right, number>> = { W: 10, ND: 20, NE: 20, NDNE: 30, R: 40 };

/** TeamPass's `evaluateFolderAccesLevel`: the least permissive wins; ND and NE make NDNE. */
function foldRight(next: TeamPass3Right, current: TeamPass3Right | undefined): TeamPass3Right {
  if ((next === 'ND' && current === 'NE') || (next === 'NE' && current === 'ND')) return 'NDNE';
  if (current === undefined) return next;
  return LEVELS[current] >= LEVELS[next] ? current : next;
}

/** A nested-set position of a folder (TeamPass rebuilds it with siblings sorted by title). */
interface TreePosition {
  nleft: number;
  nright: number;
  nlevel: number;
}

/** The sliding-window buckets of one scope: window start (seconds) → hits. */
type Buckets = Map<number, number>;

/**
 * The fake's data and TeamPass's rules over it. Every method is synchronous: a request runs
 * whole between two others, as TeamPass's transactions make it look.
 */
export class TeamPass3State {
  /** The settings. */
  settings: TeamPass3Settings;
  /** Users by id. */
  readonly users: Map<number, TeamPass3StoredUser> = new Map();
  /** Roles by id. */
  readonly roles: Map<number, TeamPass3StoredRole> = new Map();
  /** Folders by id. */
  readonly folders: Map<number, TeamPass3StoredFolder> = new Map();
  /** Items by id. */
  readonly items: Map<number, TeamPass3StoredItem> = new Map();
  /** API sessions by `jti`. */
  readonly sessions: Map<string, TeamPass3Session> = new Map();
  /** Personal access tokens: token → user id and expiry (seconds, or none). */
  readonly personalAccessTokens: Map<string, { userId: number; expiresAt: number | undefined }> = new Map();
  /** The per-user folder cache (`cache_tree.folders`); `undefined` is invalidated. */
  readonly folderCache: Map<number, number[] | undefined> = new Map();
  /** Successful sign-ins per user id. */
  readonly signIns: Map<number, number> = new Map();
  /** Failed sign-ins: `login:<login>` or `ip:<ip>` → failure times and the lock's end (seconds). */
  readonly failures: Map<string, { times: number[]; lockedUntil: number }> = new Map();
  /** The rate limit's buckets per scope (`u:<id>`, `ip:<ip>`). */
  readonly rateBuckets: Map<string, Buckets> = new Map();
  /** Item ids in ascending order. */
  private itemOrder: number[] = [];
  private itemOrderSorted = true;
  private positions: Map<number, TreePosition> | undefined;
  private nextIds = { user: 1, role: 1, folder: 1, item: 1 };

  /**
   * Creates the state.
   *
   * @param settings The settings.
   */
  constructor(settings: TeamPass3Settings) {
    this.settings = settings;
  }

  /** Fills the state from a plain description. */
  seed(seed: TeamPass3Seed): void {
    for (const folder of seed.folders ?? []) this.seedFolder(folder, undefined);
    for (const role of seed.roles ?? []) {
      const id = role.id ?? this.nextIds.role;
      this.nextIds.role = Math.max(this.nextIds.role, id + 1);
      const folders = new Map<number, TeamPass3Right>();
      for (const [ref, right] of Object.entries(role.folders ?? {})) folders.set(this.folderId(ref), right);
      this.roles.set(id, { id, name: role.name, folders });
    }
    for (const user of seed.users ?? []) {
      const id = user.id ?? this.nextIds.user;
      this.nextIds.user = Math.max(this.nextIds.user, id + 1);
      const stored: TeamPass3StoredUser = {
        id,
        login: user.login,
        password: user.password,
        apiKey: user.apiKey,
        email: user.email ?? `${user.login}@example.test`,
        roleIds: (user.roles ?? []).map((name) => this.roleByName(name).id),
        admin: user.admin ?? false,
        manager: user.manager ?? false,
        canCreateRootFolder: user.canCreateRootFolder ?? false,
        canManageAllUsers: user.canManageAllUsers ?? false,
        disabled: user.disabled ?? false,
        apiEnabled: user.apiEnabled ?? true,
        api: { create: true, read: true, update: true, delete: true, ...user.api },
        personalFolder: user.personalFolder ?? false,
        directFolders: [],
        forbiddenFolders: [],
      };
      this.users.set(id, stored);
      if (stored.personalFolder) this.ensurePersonalRoot(stored);
      stored.directFolders = (user.folders ?? []).map((ref) => this.folderId(ref));
      stored.forbiddenFolders = (user.forbiddenFolders ?? []).map((ref) => this.folderId(ref));
    }
    for (const item of seed.items ?? []) this.seedItem(item);
    this.invalidateAllCaches();
  }

  private seedFolder(folder: TeamPass3SeedFolder, parentId: number | undefined): void {
    const parent = parentId ?? (folder.parent === undefined ? 0 : this.folderId(folder.parent));
    const id = this.addFolder({
      ...(folder.id === undefined ? {} : { id: folder.id }),
      parentId: parent,
      title: phpHtmlSpecialChars(phpStripTags(phpTrim(folder.title))),
      personal: parent !== 0 && (this.folders.get(parent)?.personal ?? false),
      complexity: folder.complexity ?? 0,
    });
    for (const child of folder.children ?? []) this.seedFolder(child, id);
  }

  /** Adds an item from a seed, sanitised the way `item/create` stores it. */
  seedItem(item: TeamPass3SeedItem): TeamPass3StoredItem {
    const folderId = this.folderId(item.folder);
    const tags = typeof item.tags === 'string' ? item.tags : (item.tags ?? []).join(' ');
    let totp: TeamPass3StoredItem['totp'];
    if (item.totp !== undefined) {
      const config = typeof item.totp === 'string' ? { secret: item.totp } : item.totp;
      totp = {
        ...normalizeTotp(config.secret, config.algorithm ?? 'sha1', config.digits ?? 6, config.period ?? 30),
        enabled: config.enabled ?? true,
      };
    }
    const stored = this.addItem({
      ...(item.id === undefined ? {} : { id: item.id }),
      label: phpFullSpecialChars(item.label),
      description: xssClean(item.description ?? ''),
      password: item.password,
      login: phpFullSpecialChars(item.login ?? ''),
      email: phpSanitizeEmail(item.email ?? ''),
      url: item.url ?? '',
      folderId,
      tags: splitTags(phpHtmlSpecialChars(tags)),
      anyoneCanModify: item.anyoneCanModify ? 1 : 0,
      icon: '',
      faviconUrl: item.url ? null : '',
      totp,
      personal: this.folders.get(folderId)?.personal ?? false,
      deletedAt: item.deleted ? 1 : undefined,
      viewedNo: 0,
      fields: item.fields ? item.fields.map((field) => ({ ...field })) : [],
    });
    return stored;
  }

  /**
   * Finds a folder's id from a reference: an id, or a path of titles (as typed) joined by `/`,
   * `~login` standing for that user's personal folder.
   *
   * @param ref The reference.
   * @returns The id.
   * @throws {Error} When no folder answers to it.
   */
  folderId(ref: TeamPass3FolderRef): number {
    if (typeof ref === 'number') {
      if (!this.folders.has(ref)) throw new Error(`No folder with id ${ref}.`);
      return ref;
    }
    if (/^[0-9]+$/.test(ref) && this.folders.has(Number(ref))) return Number(ref);
    let parent = 0;
    for (const [index, part] of ref.split('/').entries()) {
      if (index === 0 && part.startsWith('~')) {
        const user = this.userByLogin(part.slice(1));
        const root = user && this.personalRoot(user.id);
        if (!root) throw new Error(`No personal folder for ${part.slice(1)}.`);
        parent = root.id;
        continue;
      }
      const escaped = phpHtmlSpecialChars(phpStripTags(phpTrim(part)));
      const match = this.childrenOf(parent).find((id) => this.folders.get(id)!.title === escaped);
      if (match === undefined) throw new Error(`No folder at ${JSON.stringify(ref)}.`);
      parent = match;
    }
    return parent;
  }

  /** Adds a folder record. */
  addFolder(
    folder: Partial<TeamPass3StoredFolder> & Pick<TeamPass3StoredFolder, 'parentId' | 'title'>,
  ): number {
    const id = folder.id ?? this.nextIds.folder;
    if (this.folders.has(id)) throw new Error(`Folder id ${id} is taken.`);
    this.nextIds.folder = Math.max(this.nextIds.folder, id + 1);
    this.folders.set(id, {
      id,
      parentId: folder.parentId,
      title: folder.title,
      personal: folder.personal ?? false,
      complexity: folder.complexity ?? 0,
      renewalPeriod: folder.renewalPeriod ?? 0,
      createAuthWithout: folder.createAuthWithout ?? 0,
      editAuthWithout: folder.editAuthWithout ?? 0,
      icon: folder.icon ?? 'fas fa-folder',
      iconSelected: folder.iconSelected ?? 'fas fa-folder-open',
    });
    this.positions = undefined;
    return id;
  }

  /** Adds an item record. */
  addItem(item: Omit<TeamPass3StoredItem, 'id'> & { id?: number }): TeamPass3StoredItem {
    const id = item.id ?? this.nextIds.item;
    if (this.items.has(id)) throw new Error(`Item id ${id} is taken.`);
    this.nextIds.item = Math.max(this.nextIds.item, id + 1);
    const stored: TeamPass3StoredItem = { ...item, id };
    this.items.set(id, stored);
    if (this.itemOrder.length > 0 && this.itemOrder[this.itemOrder.length - 1]! > id)
      this.itemOrderSorted = false;
    this.itemOrder.push(id);
    return stored;
  }

  /** Item ids in ascending order (`ORDER BY i.id ASC`). */
  orderedItems(): readonly TeamPass3StoredItem[] {
    if (!this.itemOrderSorted) {
      this.itemOrder.sort((a, b) => a - b);
      this.itemOrderSorted = true;
    }
    return this.itemOrder.map((id) => this.items.get(id)!);
  }

  /** Forgets the folder records (they are hard-deleted, as TeamPass does). */
  removeFolders(ids: readonly number[]): void {
    for (const id of ids) this.folders.delete(id);
    this.positions = undefined;
  }

  /** Marks the tree as changed (a move or a rename reorders the nested set). */
  treeChanged(): void {
    this.positions = undefined;
  }

  /** The children of a folder, by id. */
  childrenOf(parentId: number): number[] {
    const out: number[] = [];
    for (const folder of this.folders.values()) if (folder.parentId === parentId) out.push(folder.id);
    return out.sort((a, b) => a - b);
  }

  /** A folder's descendants, itself first when asked, in tree order. */
  descendants(folderId: number, includeSelf: boolean): number[] {
    const out: number[] = includeSelf ? [folderId] : [];
    const walk = (id: number) => {
      for (const child of this.sortedChildren(id)) {
        out.push(child);
        walk(child);
      }
    };
    walk(folderId);
    return out;
  }

  /** The ancestors of a folder, root first, without itself. */
  ancestors(folderId: number): TeamPass3StoredFolder[] {
    const out: TeamPass3StoredFolder[] = [];
    let current = this.folders.get(folderId);
    const seen = new Set<number>();
    while (current && current.parentId !== 0 && !seen.has(current.parentId)) {
      seen.add(current.parentId);
      current = this.folders.get(current.parentId);
      if (current) out.unshift(current);
    }
    return out;
  }

  private sortedChildren(parentId: number): number[] {
    return this.childrenOf(parentId).sort((a, b) => this.compareTitles(a, b));
  }

  /** Two folders in the order of their titles under MariaDB's collation (`É` sorts with `E`), then ids. */
  private compareTitles(a: number, b: number): number {
    return collationCompare(this.folders.get(a)!.title, this.folders.get(b)!.title) || a - b;
  }

  /** A folder's nested-set position (siblings sorted by title, as TeamPass rebuilds the tree). */
  position(folderId: number): TreePosition {
    if (!this.positions) {
      const positions = new Map<number, TreePosition>();
      const byParent = new Map<number, number[]>();
      for (const folder of this.folders.values()) {
        const list = byParent.get(folder.parentId) ?? [];
        list.push(folder.id);
        byParent.set(folder.parentId, list);
      }
      for (const list of byParent.values()) {
        list.sort((a, b) => this.compareTitles(a, b));
      }
      let tally = 1;
      const stack: { id: number; level: number; childIndex: number }[] = [];
      for (const root of byParent.get(0) ?? []) {
        stack.push({ id: root, level: 1, childIndex: 0 });
        positions.set(root, { nleft: tally++, nright: 0, nlevel: 1 });
        while (stack.length > 0) {
          const top = stack[stack.length - 1]!;
          const children = byParent.get(top.id) ?? [];
          if (top.childIndex < children.length) {
            const child = children[top.childIndex++]!;
            positions.set(child, { nleft: tally++, nright: 0, nlevel: top.level + 1 });
            stack.push({ id: child, level: top.level + 1, childIndex: 0 });
          } else {
            positions.get(top.id)!.nright = tally++;
            stack.pop();
          }
        }
      }
      this.positions = positions;
    }
    return this.positions.get(folderId) ?? { nleft: 0, nright: 0, nlevel: 0 };
  }

  /** A user by login, as `getUserCompleteData` finds it (case-insensitive). */
  userByLogin(login: string): TeamPass3StoredUser | undefined {
    const folded = login.toLowerCase();
    for (const user of this.users.values()) if (user.login.toLowerCase() === folded) return user;
    return undefined;
  }

  /** A user by login, or an error for tests that name one that does not exist. */
  requireUser(login: string): TeamPass3StoredUser {
    const user = this.userByLogin(login);
    if (!user) throw new Error(`No user ${JSON.stringify(login)}.`);
    return user;
  }

  /** A role by name. */
  roleByName(name: string): TeamPass3StoredRole {
    for (const role of this.roles.values()) if (role.name === name) return role;
    throw new Error(`No role ${JSON.stringify(name)}.`);
  }

  /** A user's personal root folder (title = the user's id, personal, at the root). */
  personalRoot(userId: number): TeamPass3StoredFolder | undefined {
    for (const folder of this.folders.values())
      if (folder.personal && folder.parentId === 0 && folder.title === String(userId)) return folder;
    return undefined;
  }

  private ensurePersonalRoot(user: TeamPass3StoredUser): void {
    if (!this.personalRoot(user.id)) this.addFolder({ parentId: 0, title: String(user.id), personal: true });
  }

  /** Whether a folder lies outside every other user's personal tree (`isFolderInsideAllowedPersonalRoot`). */
  isOutsideOthersPersonalTrees(folderId: number, userId: number): boolean {
    const folder = this.folders.get(folderId);
    if (!folder) return false;
    const chain = [...this.ancestors(folderId), folder];
    const root = chain[0]!;
    return !(root.personal && root.parentId === 0 && root.title !== String(userId));
  }

  /** The folders a user may see, as `buildUserFoldersList` computes them. */
  buildFolderList(user: TeamPass3StoredUser): number[] {
    const list: number[] = [...user.directFolders];
    if (user.admin) {
      for (const folder of this.folders.values()) if (!folder.personal) list.push(folder.id);
    } else {
      for (const roleId of user.roleIds) {
        const role = this.roles.get(roleId);
        if (role) for (const folderId of role.folders.keys()) list.push(folderId);
      }
    }
    const root = this.personalRoot(user.id);
    if (root) list.push(...this.descendants(root.id, true));
    let unique = [...new Set(list.filter((id) => id > 0))];
    if (!user.admin && user.forbiddenFolders.length > 0)
      unique = unique.filter((id) => !user.forbiddenFolders.includes(id));
    return this.filterFolders(unique, user.id);
  }

  /** Keeps folders that exist and are not in another user's personal tree (`filterFoldersForUser`). */
  filterFolders(ids: readonly number[], userId: number): number[] {
    return ids.filter((id) => this.folders.has(id) && this.isOutsideOthersPersonalTrees(id, userId));
  }

  /** The folders of a request: the cached list, rebuilt when invalidated or empty. */
  foldersOf(user: TeamPass3StoredUser): number[] {
    const cached = this.folderCache.get(user.id);
    let list: number[];
    if (cached !== undefined && cached.length > 0) list = cached;
    else {
      list = this.buildFolderList(user);
      this.folderCache.set(user.id, list);
    }
    const filtered = this.filterFolders(list, user.id);
    if (filtered.length !== list.length) this.folderCache.set(user.id, filtered);
    return filtered;
  }

  /** Invalidates the folder cache of the given users (TeamPass's `invalidateCacheForFolderUsers`). */
  invalidateCaches(userIds: Iterable<number>): void {
    for (const id of userIds) this.folderCache.set(id, undefined);
  }

  /** Invalidates every folder cache. */
  invalidateAllCaches(): void {
    this.invalidateCaches(this.users.keys());
  }

  /** Users holding a role with a right on one of the folders, plus administrators. */
  usersOfFolders(folderIds: readonly number[]): number[] {
    const out = new Set<number>();
    for (const user of this.users.values()) {
      if (user.admin) out.add(user.id);
      for (const roleId of user.roleIds) {
        const role = this.roles.get(roleId);
        if (role && folderIds.some((id) => role.folders.has(id))) out.add(user.id);
      }
    }
    return [...out];
  }

  /** The effective right of a user on a folder (`getFolderAccessLevelForUser`). */
  accessOf(folderId: number, userId: number): FolderAccess {
    const user = this.users.get(userId);
    if (!user || user.directFolders.includes(folderId) || user.roleIds.length === 0) return ACCESS.W;
    let resolved: TeamPass3Right | undefined;
    for (const roleId of user.roleIds) {
      const right = this.roles.get(roleId)?.folders.get(folderId);
      if (right) resolved = foldRight(right, resolved);
    }
    return ACCESS[resolved ?? 'W'];
  }

  /** Whether a user may use a folder (`canUseFolder`): in their list, or any folder for root creators when allowed. */
  canUseFolder(
    user: TeamPass3StoredUser,
    folders: readonly number[],
    folderId: number,
    rootBypass: boolean,
  ): boolean {
    if (!this.isOutsideOthersPersonalTrees(folderId, user.id)) return false;
    if (folders.includes(folderId)) return true;
    return rootBypass && user.canCreateRootFolder;
  }

  /** Whether a user may reach an item in a folder (`canAccessItemInFolder`). */
  canAccessItem(user: TeamPass3StoredUser, folders: readonly number[], folderId: number): boolean {
    return this.isOutsideOthersPersonalTrees(folderId, user.id) && folders.includes(folderId);
  }

  /** The folder-management gate (`hasFolderManagementPrivilege`). */
  hasFolderManagementPrivilege(user: TeamPass3StoredUser, isPersonal: boolean): boolean {
    return (
      isPersonal ||
      user.admin ||
      user.manager ||
      user.canManageAllUsers ||
      this.settings.userCanCreateFolders ||
      user.canCreateRootFolder
    );
  }

  /** Counts a successful sign-in. */
  countSignIn(userId: number): void {
    this.signIns.set(userId, (this.signIns.get(userId) ?? 0) + 1);
  }

  /** The API permissions of a user. */
  flagsOf(userId: number): TeamPass3ApiFlags | undefined {
    return this.users.get(userId)?.api;
  }
}

/**
 * Splits tags the way TeamPass stores them: on spaces and commas, trimmed, at most 30 characters,
 * lower case.
 *
 * @param tags The tags text (already escaped).
 * @returns The tags.
 */
export function splitTags(tags: string): string[] {
  return tags
    .split(/[\s,]+/)
    .map((tag) => [...tag.trim()].slice(0, 30).join('').toLowerCase())
    .filter((tag) => tag !== '');
}
