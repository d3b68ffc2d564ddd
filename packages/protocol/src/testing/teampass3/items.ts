/**
 * The `item/*` actions of the TeamPass 3 fake, check for check in the order of TeamPass 3.2.1.5's
 * `ItemController` and `ItemModel`, with their words.
 *
 * @module
 */

import {
  type Answer,
  type Caller,
  json,
  methodNotSupported,
  problem,
  type RequestContext,
  UncaughtPhpError,
} from './http.ts';
import {
  collationCompare,
  collationContains,
  collationEquals,
  collationFold,
  type PhpParams,
  phpEmpty,
  phpFullSpecialChars,
  phpHtmlSpecialChars,
  phpHtmlSpecialCharsDecode,
  phpInt,
  phpIsset,
  phpSanitizeEmail,
  phpSanitizeUrl,
  phpString,
  phpStripSlashes,
  phpUrlDecode,
  xssClean,
} from './php.ts';
import { splitTags, type TeamPass3State } from './state.ts';
import { normalizeTotp, totpAt } from './totp.ts';
import type { TeamPass3StoredItem } from './types.ts';

/** The item actions by name. */
export const ITEM_ACTIONS: Readonly<Record<string, (ctx: RequestContext, caller: Caller) => Answer>> = {
  get: getAction,
  inFolders: inFoldersAction,
  findByUrl: findByUrlAction,
  getOtp: getOtpAction,
  allTags: allTagsAction,
  create: createAction,
  update: updateAction,
  delete: deleteAction,
};

/** An item as `item/get` and `item/inFolders` answer it. */
function itemRecord(state: TeamPass3State, item: TeamPass3StoredItem): Record<string, unknown> {
  const folder = state.folders.get(item.folderId);
  const path = state
    .ancestors(item.folderId)
    .map((ancestor) => phpHtmlSpecialChars(phpStripSlashes(phpHtmlSpecialCharsDecode(ancestor.title))))
    .join('/');
  return {
    id: item.id,
    label: item.label,
    description: item.description,
    pwd: item.password,
    url: item.url,
    login: item.login,
    email: item.email,
    viewed_no: item.viewedNo,
    fa_icon: item.icon,
    inactif: item.deletedAt === undefined ? 0 : 1,
    perso: item.personal ? 1 : 0,
    id_tree: item.folderId,
    folder_label: folder ? folder.title : null,
    path,
    totp: item.totp ? item.totp.secret : null,
    totp_algorithm: item.totp?.algorithm ?? 'sha1',
    totp_digits: item.totp?.digits ?? 6,
    totp_period: item.totp?.period ?? 30,
    favicon_url: item.faviconUrl,
    tags: item.tags.length > 0 ? item.tags.join(', ') : null,
    anyone_can_modify: String(item.anyoneCanModify),
    fields: item.fields,
  };
}

/** Whether an item is visible to a caller in a listing (not deleted, in a folder of theirs). */
function visible(
  state: TeamPass3State,
  caller: Caller,
  item: TeamPass3StoredItem,
  folders: Set<number>,
): boolean {
  return (
    item.deletedAt === undefined &&
    folders.has(item.folderId) &&
    state.isOutsideOthersPersonalTrees(item.folderId, caller.user.id)
  );
}

function getAction(ctx: RequestContext, caller: Caller): Answer {
  const params = ctx.readParams();
  if (ctx.method !== 'GET') return methodNotSupported('GET');
  const state = ctx.state;
  const folders = new Set(caller.folders);
  let matches: (item: TeamPass3StoredItem) => boolean;
  let limit = 0;
  let offset = 0;
  let byId = false;
  if (phpIsset(params.id)) {
    const id = phpInt(params.id);
    byId = true;
    matches = (item) => item.id === id;
  } else if (phpIsset(params.label) || phpIsset(params.description)) {
    const field = phpIsset(params.label) ? 'label' : 'description';
    const needle = phpString(params[field]);
    const like = phpIsset(params.like) && phpInt(params.like) === 1;
    matches = like
      ? (item) => collationContains(item[field], needle)
      : (item) => collationEquals(item[field], needle);
    limit = phpInt(params.limit) > 0 ? Math.min(phpInt(params.limit), 500) : 50;
    offset = Math.max(0, phpInt(params.offset));
  } else {
    return problem(400, 'Item id, label or description is mandatory');
  }
  const found = state.orderedItems().filter((item) => visible(state, caller, item, folders) && matches(item));
  const page = limit > 0 ? found.slice(offset, offset + limit) : found;
  return json(
    page.map((item) => itemRecord(state, item)),
    200,
    byId ? {} : { 'x-total-count': String(found.length) },
  );
}

function inFoldersAction(ctx: RequestContext, caller: Caller): Answer {
  const params = ctx.readParams();
  if (ctx.method !== 'GET') return methodNotSupported('GET');
  if (!phpIsset(params.folders)) return problem(400, 'Folders are mandatory');
  const requested = params.folders;
  if (typeof requested === 'object' && requested !== null) {
    // explode() of an array: a TypeError PHP does not catch here.
    throw new UncaughtPhpError('explode(): Argument #2 ($string) must be of type string, array given');
  }
  const own = caller.folders.map(String);
  const asked = phpString(requested).replace(/[[\]]/g, '').split(',');
  const folders = new Set(
    asked
      .filter((id) => own.includes(id))
      .map((id) => phpInt(id))
      .filter((id) => id !== 0),
  );
  if (folders.size === 0) return problem(400, 'Folders are mandatory');
  let limit = phpIsset(params.limit) ? Math.min(Math.max(0, phpInt(params.limit)), 500) : 0;
  const offset = phpIsset(params.offset) ? Math.max(0, phpInt(params.offset)) : 0;
  if (offset > 0 && limit === 0) limit = 50;
  const state = ctx.state;
  const found = state
    .orderedItems()
    .filter((item) => item.deletedAt === undefined && folders.has(item.folderId));
  const page = limit > 0 ? found.slice(offset, offset + limit) : found;
  return json(
    page.map((item) => itemRecord(state, item)),
    200,
    { 'x-total-count': String(found.length) },
  );
}

function findByUrlAction(ctx: RequestContext, caller: Caller): Answer {
  const params = ctx.readParams();
  if (ctx.method !== 'GET') return methodNotSupported('GET');
  if (!phpIsset(params.url) || phpEmpty(params.url)) return problem(400, 'URL parameter is mandatory');
  const needle = phpUrlDecode(phpString(params.url));
  const state = ctx.state;
  const folders = new Set(caller.folders);
  const found = state
    .orderedItems()
    .filter((item) => visible(state, caller, item, folders) && collationContains(item.url, needle))
    .sort((a, b) => collationCompare(a.label, b.label));
  return json(
    found.map((item) => ({
      id: item.id,
      label: item.label,
      login: item.login,
      url: item.url,
      folder_id: item.folderId,
      has_otp: item.totp?.enabled ? 1 : 0,
      favicon_url: item.faviconUrl ?? '',
    })),
  );
}

function getOtpAction(ctx: RequestContext, caller: Caller): Answer {
  const params = ctx.readParams();
  if (ctx.method !== 'GET') return methodNotSupported('GET');
  if (!phpIsset(params.id) || phpEmpty(params.id)) return problem(400, 'Item id is mandatory');
  const id = phpInt(params.id);
  const item = ctx.state.items.get(id);
  if (!item) return problem(404, 'Item not found');
  if (!ctx.state.canAccessItem(caller.user, caller.folders, item.folderId))
    return problem(403, 'Access denied to this item');
  if (!item.totp) return problem(404, 'OTP not configured for this item');
  if (!item.totp.enabled) return problem(403, 'OTP is not enabled for this item');
  const { code, expiresIn } = totpAt(item.totp, ctx.now);
  return json({
    otp_code: code,
    expires_in: expiresIn,
    item_id: id,
    algorithm: item.totp.algorithm,
    digits: item.totp.digits,
    period: item.totp.period,
  });
}

function allTagsAction(ctx: RequestContext): Answer {
  if (ctx.method !== 'GET') return methodNotSupported('GET');
  // Every tag of the tags table, whoever may see its item (TeamPass's leak), deleted items too.
  const tags = new Map<string, string>();
  for (const item of ctx.state.orderedItems()) {
    for (const tag of item.tags) {
      const key = collationFold(tag);
      if (!tags.has(key)) tags.set(key, tag);
    }
  }
  return json([...tags.values()].sort(collationCompare));
}

const CREATE_FIELDS = [
  'label',
  'folder_id',
  'password',
  'login',
  'email',
  'url',
  'tags',
  'anyone_can_modify',
];

function createAction(ctx: RequestContext, caller: Caller): Answer {
  if (ctx.method !== 'POST') return methodNotSupported('POST');
  if (!caller.user.api.create) return problem(403, 'User is not allowed to create an item');
  const params = ctx.readParams();
  const state = ctx.state;
  if (!CREATE_FIELDS.every((field) => phpIsset(params[field])))
    return problem(400, 'All fields have to be provided even if empty (refer to documentation).');
  const folderId = phpInt(params.folder_id);
  if (!state.canUseFolder(caller.user, caller.folders, folderId, true))
    return problem(403, 'User is not allowed in this folder');
  if (state.accessOf(folderId, caller.user.id).type === 'R')
    return problem(403, 'Access denied: folder is read-only');
  if (phpEmpty(params.label)) return problem(400, 'Label is mandatory');

  const label = phpFullSpecialChars(phpString(params.label));
  const password = phpString(params.password);
  let totp: TeamPass3StoredItem['totp'];
  try {
    const secret = phpString(params.totp);
    if (secret !== '') {
      totp = {
        ...normalizeTotp(
          secret,
          phpIsset(params.totp_algorithm) ? phpString(params.totp_algorithm) : 'sha1',
          phpIsset(params.totp_digits) ? phpInt(params.totp_digits) : 6,
          phpIsset(params.totp_period) ? phpInt(params.totp_period) : 30,
        ),
        enabled: true,
      };
    }
    checkPassword(state, password, 'create');
    const folder = state.folders.get(folderId);
    const personal = folder?.personal ?? false;
    if (
      !personal &&
      (folder?.createAuthWithout ?? 0) === 0 &&
      passwordStrength(password) < (folder?.complexity ?? 0)
    )
      throw new Error('Password strength is too low');
    if (!state.settings.duplicateItems && !personal) {
      for (const other of state.items.values())
        if (other.deletedAt === undefined && collationEquals(other.label, label))
          throw new Error('Similar item already exists. Duplicates are not allowed.');
    }
    const url = sanitizeItemUrl(phpString(params.url));
    const item = state.addItem({
      label,
      description: xssClean(phpString(params.description)),
      password,
      login: phpFullSpecialChars(phpString(params.login)),
      email: phpSanitizeEmail(phpString(params.email)),
      url,
      folderId,
      tags: splitTags(phpHtmlSpecialChars(phpString(params.tags))),
      anyoneCanModify: phpInt(params.anyone_can_modify),
      icon: phpString(params.icon).replace(/[^a-zA-Z0-9 _-]/g, ''),
      faviconUrl: url === '' ? '' : null,
      totp,
      personal,
      deletedAt: undefined,
      viewedNo: 0,
      fields: [],
    });
    return json({ error: false, message: 'Item added successfully', newId: item.id }, 201, {
      location: `${ctx.path.replace(/create$/, 'get')}?id=${item.id}`,
    });
  } catch (error) {
    return problem(422, error instanceof Error ? error.message : String(error));
  }
}

function checkPassword(state: TeamPass3State, password: string, mode: 'create'): void {
  if (mode === 'create' && password === '' && !state.settings.createItemWithoutPassword)
    throw new Error('Empty password is not allowed');
  const max = state.settings.passwordMaximumLength;
  if (Buffer.byteLength(password) > max)
    throw new Error(`Password is too long (max allowed is ${max} characters)`);
}

/**
 * A stand-in for zxcvbn's score mapped to TeamPass's levels (0, 20, 38, 48, 60): length and
 * character classes only, no dictionary.
 */
function passwordStrength(password: string): number {
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(password)).length;
  const bits = [...password].length * Math.log2([0, 26, 52, 62, 95][classes] ?? 95);
  const score = bits < 28 ? 0 : bits < 36 ? 1 : bits < 60 ? 2 : bits < 80 ? 3 : 4;
  return [0, 20, 38, 48, 60][score]!;
}

function sanitizeItemUrl(url: string): string {
  const clean = phpSanitizeUrl(phpHtmlSpecialCharsDecode(url));
  return /^\s*(?:javascript|data|vbscript)\s*:/i.test(clean) ? '' : clean;
}

const UPDATABLE = [
  'label',
  'password',
  'description',
  'login',
  'email',
  'url',
  'tags',
  'anyone_can_modify',
  'icon',
  'folder_id',
  'totp',
  'totp_algorithm',
  'totp_digits',
  'totp_period',
  'fields',
];

function updateAction(ctx: RequestContext, caller: Caller): Answer {
  if (ctx.method !== 'PUT') return methodNotSupported('PUT');
  if (!caller.user.api.update) return problem(403, 'User is not allowed to update items');
  const params = ctx.readParams();
  if (!phpIsset(params.id) || phpEmpty(params.id)) return problem(400, 'Item ID is mandatory');
  const found = itemFor(ctx, caller, phpInt(params.id), 'edit');
  if ('refused' in found) return found.refused;
  if (!UPDATABLE.some((field) => phpIsset(params[field])))
    return problem(400, 'At least one supported field to update must be provided.');
  return updateItem(ctx.state, caller, found.item, params);
}

function updateItem(
  state: TeamPass3State,
  caller: Caller,
  item: TeamPass3StoredItem,
  params: PhpParams,
): Answer {
  const changes: Partial<TeamPass3StoredItem> = {};
  if (phpIsset(params.folder_id)) {
    const target = phpInt(params.folder_id);
    if (!state.canUseFolder(caller.user, caller.folders, item.folderId, false))
      return problem(403, 'Access denied to the source folder');
    if (!state.canUseFolder(caller.user, caller.folders, target, false))
      return problem(403, 'Access denied to the target folder');
    if (state.accessOf(target, caller.user.id).type === 'R')
      return problem(403, 'Access denied: target folder is read-only');
    const targetPersonal = state.folders.get(target)?.personal ?? false;
    if (item.personal && !targetPersonal && target !== item.folderId) {
      const conflicting = Object.keys(params).filter((key) =>
        [
          'label',
          'password',
          'description',
          'login',
          'email',
          'url',
          'tags',
          'anyone_can_modify',
          'icon',
          'fields',
        ]
          .concat(['totp', 'totp_algorithm', 'totp_digits', 'totp_period'])
          .includes(key),
      );
      if (conflicting.length > 0)
        return problem(
          422,
          `A personal-to-shared move must be requested separately from other item updates. Remove: ${conflicting.join(', ')}.`,
        );
    }
    changes.folderId = target;
    changes.personal = targetPersonal;
  }
  if (item.url !== '') changes.faviconUrl = null;
  if (phpIsset(params.label)) changes.label = phpFullSpecialChars(phpString(params.label));
  if (phpIsset(params.description)) changes.description = xssClean(phpString(params.description));
  if (phpIsset(params.login)) changes.login = phpFullSpecialChars(phpString(params.login));
  if (phpIsset(params.email)) changes.email = phpSanitizeEmail(phpString(params.email));
  if (phpIsset(params.url)) changes.url = sanitizeItemUrl(phpString(params.url));
  if (phpIsset(params.icon)) changes.icon = phpString(params.icon).replace(/[^a-zA-Z0-9 _-]/g, '');
  if (phpIsset(params.anyone_can_modify)) changes.anyoneCanModify = phpInt(params.anyone_can_modify);
  if (phpIsset(params.password) && !phpEmpty(params.password)) {
    const password = phpString(params.password);
    const max = state.settings.passwordMaximumLength;
    if (Buffer.byteLength(password) > max)
      return problem(400, `Password is too long (max allowed is ${max} characters)`);
    const folder = state.folders.get(changes.folderId ?? item.folderId);
    if (
      folder &&
      !folder.personal &&
      folder.createAuthWithout === 0 &&
      passwordStrength(password) < folder.complexity
    ) {
      // A plain Exception in updateItem(): TeamPass hides its words behind a 500.
      return problem(500, 'An internal error occurred while updating the item.');
    }
    changes.password = password;
  }
  const totpKeys = ['totp', 'totp_algorithm', 'totp_digits', 'totp_period'];
  const hasTotpUpdate = totpKeys.some((key) => key in params);
  const clearsTotp = 'totp' in params && phpEmpty(params.totp);
  if (hasTotpUpdate && !clearsTotp) {
    const input =
      phpIsset(params.totp) && !phpEmpty(params.totp) ? phpString(params.totp) : item.totp?.secret;
    if (input === undefined)
      return problem(422, 'A TOTP secret is required before its profile can be configured.');
    try {
      const profile = normalizeTotp(
        input,
        phpIsset(params.totp_algorithm) ? phpString(params.totp_algorithm) : (item.totp?.algorithm ?? 'sha1'),
        phpIsset(params.totp_digits) ? phpInt(params.totp_digits) : (item.totp?.digits ?? 6),
        phpIsset(params.totp_period) ? phpInt(params.totp_period) : (item.totp?.period ?? 30),
      );
      changes.totp = { ...profile, enabled: item.totp?.enabled ?? true };
    } catch (error) {
      return problem(422, error instanceof Error ? error.message : String(error));
    }
  }
  Object.assign(item, changes);
  if (clearsTotp) item.totp = undefined;
  if (phpIsset(params.tags)) item.tags = splitTags(phpHtmlSpecialChars(phpString(params.tags)));
  return json({ error: false, message: 'Item updated successfully', item_id: item.id });
}

/**
 * The item an update or a delete names, as TeamPass checks it: it exists, the caller reaches its
 * folder, and may edit (or delete) there.
 */
function itemFor(
  ctx: RequestContext,
  caller: Caller,
  id: number,
  right: 'edit' | 'delete',
): { item: TeamPass3StoredItem } | { refused: Answer } {
  const state = ctx.state;
  const item = state.items.get(id);
  if (!item) return { refused: problem(404, 'Item not found') };
  if (!state.canAccessItem(caller.user, caller.folders, item.folderId))
    return { refused: problem(403, 'Access denied to this item') };
  if (!state.accessOf(item.folderId, caller.user.id)[right])
    return {
      refused: problem(403, `Access denied: you are not allowed to ${right} items in this folder`),
    };
  return { item };
}

function deleteAction(ctx: RequestContext, caller: Caller): Answer {
  if (ctx.method !== 'DELETE') return methodNotSupported('DELETE');
  if (!caller.user.api.delete) return problem(403, 'User is not allowed to delete items');
  const params = ctx.readParams();
  if (!phpIsset(params.id) || phpEmpty(params.id)) return problem(400, 'Item ID is mandatory');
  const id = phpInt(params.id);
  const found = itemFor(ctx, caller, id, 'delete');
  if ('refused' in found) return found.refused;
  found.item.deletedAt = ctx.now;
  return json({ error: false, message: 'Item deleted successfully', item_id: id });
}
