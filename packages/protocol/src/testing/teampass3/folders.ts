/**
 * The `folder/*` actions of the TeamPass 3 fake, in the order of TeamPass 3.2.1.5's
 * `FolderController`, `FolderModel` and `FolderManager`, with their words.
 *
 * @module
 */

import { type Answer, type Caller, json, methodNotSupported, problem, type RequestContext } from './http.ts';
import {
  collationEquals,
  type PhpParams,
  phpInt,
  phpIsNumeric,
  phpIsset,
  phpString,
  phpTrim,
  phpTrimEscape,
} from './php.ts';
import type { TeamPass3State } from './state.ts';
import type { TeamPass3Right } from './types.ts';

/** The folder actions by name. */
export const FOLDER_ACTIONS: Readonly<Record<string, (ctx: RequestContext, caller: Caller) => Answer>> = {
  listFolders: listFoldersAction,
  writableFolders: writableFoldersAction,
  create: createAction,
  update: updateAction,
  delete: deleteAction,
};

const COMPLEXITIES = [0, 20, 38, 48, 60];

const RIGHTS: readonly TeamPass3Right[] = ['R', 'W', 'NE', 'ND', 'NDNE'];

interface TreeNode {
  id: number;
  title: string;
  isVisible: boolean;
  complexity: number;
  childrens: TreeNode[];
}

function listFoldersAction(ctx: RequestContext, caller: Caller): Answer {
  if (ctx.method !== 'GET') return methodNotSupported('GET');
  if (caller.folders.length === 0) return json([], 200, { 'x-total-count': '0' });
  const state = ctx.state;
  const visible = new Set(caller.folders);
  const node = (id: number): TreeNode | undefined => {
    const folder = state.folders.get(id)!;
    const childrens = state
      .childrenOf(id)
      .map(node)
      .filter((child): child is TreeNode => child !== undefined);
    const isVisible = visible.has(id);
    if (!isVisible && childrens.length === 0) return undefined;
    return { id, title: folder.title, isVisible, complexity: folder.complexity, childrens };
  };
  const roots = state
    .childrenOf(0)
    .map(node)
    .filter((root): root is TreeNode => root !== undefined);
  const params = ctx.readParams();
  const offset = Math.max(0, phpInt(params.offset));
  const limit = Math.max(0, phpInt(params.limit));
  const page = offset > 0 || limit > 0 ? roots.slice(offset, limit > 0 ? offset + limit : undefined) : roots;
  return json(page, 200, { 'x-total-count': String(roots.length) });
}

function writableFoldersAction(ctx: RequestContext, caller: Caller): Answer {
  if (ctx.method !== 'GET') return methodNotSupported('GET');
  const state = ctx.state;
  const user = caller.user;
  const rows = caller.folders
    .map((id) => state.folders.get(id)!)
    .sort((a, b) => state.position(a.id).nleft - state.position(b.id).nleft);
  return json(
    rows.map((folder) => {
      const access = state.accessOf(folder.id, user.id);
      const ownRoot = folder.title === String(user.id);
      const personalRoot = folder.personal && folder.parentId === 0;
      const manage = access.type !== 'R' && state.hasFolderManagementPrivilege(user, folder.personal);
      const mutate = manage && !personalRoot;
      return {
        id: folder.id,
        label: ownRoot ? caller.username : folder.title,
        level: state.position(folder.id).nlevel,
        parent_id: folder.parentId,
        first_position: ownRoot ? 1 : 0,
        position: state.position(folder.id).nleft,
        complexity: folder.complexity,
        is_readonly: access.type === 'R' ? 1 : 0,
        access_type: access.type,
        can_create: access.create ? 1 : 0,
        can_edit: access.edit ? 1 : 0,
        can_delete: access.delete ? 1 : 0,
        is_personal: folder.personal ? 1 : 0,
        is_personal_root: personalRoot ? 1 : 0,
        can_create_subfolder: manage && user.api.create ? 1 : 0,
        can_rename_folder: mutate && user.api.update ? 1 : 0,
        can_move_folder: mutate && user.api.update ? 1 : 0,
        can_delete_folder: mutate && user.api.delete ? 1 : 0,
      };
    }),
  );
}

function createAction(ctx: RequestContext, caller: Caller): Answer {
  if (ctx.method !== 'POST') return methodNotSupported('POST');
  if (caller.folders.length === 0) return problem(403, 'Access denied: no accessible folders');
  const user = caller.user;
  if (!user.api.create) return problem(403, 'Access denied: insufficient permissions to create a folder');
  const params = ctx.readParams();
  const isPrivate = ['1', 'true', 'on', 'yes'].includes(phpString(params.private).toLowerCase());
  const required = isPrivate ? ['title'] : ['title', 'parent_id', 'complexity'];
  const missing = required.filter((name) => !phpIsset(params[name]) || params[name] === '');
  if (missing.length > 0) return problem(400, `Missing required parameters: ${missing.join(', ')}`);

  const state = ctx.state;
  const title = phpTrimEscape(phpString(params.title));
  let parentId = phpInt(params.parent_id);
  const complexity = phpInt(params.complexity);
  const accessRights = phpTrimEscape(phpString(params.access_rights)) || 'W';
  const right = RIGHTS.find((code) => code === accessRights);
  if (phpTrim(title) === '') return problem(422, 'Folder name cannot be empty');

  let isPersonal: boolean;
  if (isPrivate) {
    const root = state.personalRoot(user.id);
    if (!user.personalFolder) return problem(403, 'Personal folders are disabled for this user');
    if (!root) return problem(403, 'No personal folder root found for this user');
    if (parentId <= 0) parentId = root.id;
    else if (!state.folders.get(parentId)?.personal || !state.isOutsideOthersPersonalTrees(parentId, user.id))
      return problem(422, 'The provided parent folder is not inside your personal folder');
    isPersonal = true;
  } else {
    isPersonal = parentId > 0 && (state.folders.get(parentId)?.personal ?? false);
  }
  if (parentId > 0) {
    if (!state.isOutsideOthersPersonalTrees(parentId, user.id))
      return problem(403, 'Access denied: parent folder is not accessible');
    if (state.accessOf(parentId, user.id).type === 'R')
      return problem(403, 'Access denied: parent folder is read-only');
  }
  if (right === undefined) return problem(422, 'Invalid parameters');
  if (!isPersonal && !COMPLEXITIES.includes(complexity)) return problem(422, 'Invalid parameters');
  if (!state.hasFolderManagementPrivilege(user, isPersonal))
    return problem(403, 'Access denied: insufficient permissions to create a folder');

  // FolderManager::createNewFolder
  if (phpIsNumeric(title))
    return problem(
      422,
      'Folder label can not be just a number. Please give your folder a name which includes letters.',
    );
  if (!(parentId === 0 && user.canCreateRootFolder) && !caller.folders.includes(parentId) && !user.admin)
    return problem(422, 'Folder is not allowed for this user');
  if (!isPersonal && !state.settings.duplicateFolders) {
    for (const folder of state.folders.values())
      if (!folder.personal && collationEquals(folder.title, title))
        return problem(422, 'This folder already exists!');
  }
  const parent = state.folders.get(parentId);
  if (parent && !parent.personal && complexity < parent.complexity)
    return problem(
      422,
      `Subfolders must have password strength set the same or higher than parent folder [<b>${parent.complexity}</b>]`,
    );

  const newId = state.addFolder({
    parentId,
    title,
    personal: isPersonal,
    complexity,
    renewalPeriod: phpInt(params.duration),
    createAuthWithout: phpInt(params.create_auth_without),
    editAuthWithout: phpInt(params.edit_auth_without),
    icon: phpTrimEscape(phpString(params.icon)) || 'fas fa-folder',
    iconSelected: phpTrimEscape(phpString(params.icon_selected)) || 'fas fa-folder-open',
  });
  if (parentId !== 0 && state.settings.subfolderRightsAsParent) {
    for (const role of state.roles.values()) {
      const right = role.folders.get(parentId);
      if (right) role.folders.set(newId, right);
    }
  } else if (!user.admin) {
    for (const roleId of new Set(user.roleIds)) state.roles.get(roleId)?.folders.set(newId, right);
  }
  state.invalidateCaches(state.usersOfFolders([newId]));
  if (!user.admin) {
    // FolderManager::updateUserFolderCache appends the new folder to the creator's cache.
    const cached = state.folderCache.get(user.id);
    if (cached) state.folderCache.set(user.id, [...cached, newId]);
  }
  return json({ error: false, newId }, 201);
}

const UPDATABLE = [
  'title',
  'parent_id',
  'complexity',
  'duration',
  'create_auth_without',
  'edit_auth_without',
  'icon',
  'icon_selected',
];

function updateAction(ctx: RequestContext, caller: Caller): Answer {
  if (ctx.method !== 'PUT') return methodNotSupported('PUT');
  if (!caller.user.api.update)
    return problem(403, 'Access denied: insufficient permissions to update a folder');
  const params = ctx.readParams();
  if (!phpIsset(params.id) || phpInt(params.id) <= 0) return problem(400, 'Folder id is mandatory');
  if (!UPDATABLE.some((field) => field in params))
    return problem(400, `Nothing to update (provide at least one of: ${UPDATABLE.join(', ')})`);
  return updateFolder(ctx.state, caller, params);
}

function updateFolder(state: TeamPass3State, caller: Caller, params: PhpParams): Answer {
  const user = caller.user;
  const id = phpInt(params.id);
  const folder = state.folders.get(id);
  if (!folder) return problem(404, 'Folder not found');
  if (!state.canUseFolder(user, caller.folders, id, false))
    return problem(403, 'Access denied to this folder');
  if (state.accessOf(id, user.id).type === 'R') return problem(403, 'Access denied: folder is read-only');

  const title = 'title' in params ? phpTrimEscape(phpString(params.title)) : undefined;
  const parentProvided = 'parent_id' in params;
  const newParent = parentProvided ? phpInt(params.parent_id) : folder.parentId;
  const parentChanged = newParent !== folder.parentId;
  const titleChanged = title !== undefined && title !== folder.title;
  const personalRoot = folder.parentId === 0 && folder.personal;
  if (personalRoot && (titleChanged || parentChanged))
    return problem(403, 'A personal root folder cannot be renamed or moved');
  let isPersonal = folder.personal;
  if (parentChanged) {
    if (newParent === id) return problem(422, 'A folder cannot be moved into itself');
    if (newParent !== 0) {
      if (state.descendants(id, false).includes(newParent))
        return problem(422, 'A folder cannot be moved into one of its descendants');
      if (!state.canUseFolder(user, caller.folders, newParent, true))
        return problem(403, 'Access denied: target parent folder is not accessible');
      if (state.accessOf(newParent, user.id).type === 'R')
        return problem(403, 'Access denied: target parent folder is read-only');
      isPersonal = state.folders.get(newParent)?.personal ?? false;
    } else {
      if (!user.canCreateRootFolder && !user.admin)
        return problem(403, 'Access denied: cannot move folder to root');
      isPersonal = false;
    }
    if (folder.personal !== isPersonal)
      return problem(422, 'Moving a folder between personal and shared trees is not supported');
  }
  if (title !== undefined && phpTrim(title) === '') return problem(422, 'Folder name cannot be empty');
  if (title !== undefined && phpIsNumeric(title)) return problem(422, 'Folder name cannot be numeric');
  const complexityProvided = 'complexity' in params;
  const complexity = phpInt(params.complexity);
  if (complexityProvided && !COMPLEXITIES.includes(complexity))
    return problem(422, 'Invalid complexity level');
  if (titleChanged && !state.settings.duplicateFolders) {
    for (const other of state.folders.values())
      if (!other.personal && other.id !== id && collationEquals(other.title, title))
        return problem(422, 'A folder with this name already exists');
  }
  if (complexityProvided && !isPersonal && !user.admin && !(user.manager && user.canManageAllUsers)) {
    const parent = state.folders.get(newParent);
    if (parent && complexity < parent.complexity)
      return problem(422, 'Complexity level is lower than the parent folder requirement');
  }
  if (!state.hasFolderManagementPrivilege(user, isPersonal))
    return problem(403, 'Access denied: insufficient permissions to update this folder');

  if (title !== undefined) folder.title = title;
  if (parentProvided) folder.parentId = newParent;
  folder.personal = isPersonal;
  if (complexityProvided) folder.complexity = complexity;
  if ('duration' in params) folder.renewalPeriod = phpInt(params.duration);
  if ('create_auth_without' in params) folder.createAuthWithout = phpInt(params.create_auth_without);
  if ('edit_auth_without' in params) folder.editAuthWithout = phpInt(params.edit_auth_without);
  if ('icon' in params) folder.icon = phpTrimEscape(phpString(params.icon));
  if ('icon_selected' in params) folder.iconSelected = phpTrimEscape(phpString(params.icon_selected));
  state.treeChanged();
  return json({ error: false, message: 'Folder updated', id });
}

function deleteAction(ctx: RequestContext, caller: Caller): Answer {
  if (ctx.method !== 'DELETE') return methodNotSupported('DELETE');
  const user = caller.user;
  if (!user.api.delete) return problem(403, 'Access denied: insufficient permissions to delete a folder');
  const params = ctx.readParams();
  if (!phpIsset(params.id) || phpInt(params.id) <= 0)
    return problem(400, 'Folder id is mandatory and must be greater than 0');
  const state = ctx.state;
  const id = phpInt(params.id);
  const folder = state.folders.get(id);
  if (!folder) return problem(404, 'Folder not found');
  if (!state.canUseFolder(user, caller.folders, id, false))
    return problem(403, 'Access denied to this folder');
  if (state.accessOf(id, user.id).type === 'R') return problem(403, 'Access denied: folder is read-only');
  if (folder.parentId === 0 && folder.personal)
    return problem(403, 'A personal root folder cannot be deleted');
  if (!state.hasFolderManagementPrivilege(user, folder.personal))
    return problem(403, 'Access denied: insufficient permissions to delete this folder');

  const deleted = state.descendants(id, true);
  let deletedItems = 0;
  for (const item of state.orderedItems()) {
    if (deleted.includes(item.folderId)) {
      // Every item of the subtree, already deleted ones too, is (re)stamped and counted.
      item.deletedAt = ctx.now;
      deletedItems++;
    }
  }
  const affected = state.usersOfFolders(deleted);
  state.removeFolders(deleted);
  state.invalidateCaches(affected);
  return json({
    error: false,
    message: 'Folder deleted',
    deleted_folders: deleted,
    deleted_items_count: deletedItems,
  });
}
