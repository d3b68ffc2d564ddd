/**
 * The import's read phase: reads the source through the core's client, whichever it is (TeamPass
 * 2, TeamPass 3 as the signed-in account sees it, another Vaultline server), checks first what its
 * capabilities allow (the credentials, which logins, attachments), reads the folders and rights per
 * login, their items, the attachments, and this vault's state (what earlier runs imported, the labels, users and roles
 * here), and decides what to add. It writes nothing; it ends in a plain {@link ImportSnapshot}.
 *
 * @module
 */

import {
  ACCESS_TYPES,
  type AccessType,
  createVaultClient,
  credentialsFrom,
  type DownloadedFile,
  type FileInfo,
  type Folder,
  type Item,
  type ItemOtpSecret,
  type ServerCapabilities,
  toVaultError,
  type VaultClient,
  VaultError,
} from '@vaultline/protocol';
import type { ItemValues } from '@vaultline/protocol/wire';
import type { Queryable } from '@vaultline/store';
import { MAX_TITLE_LENGTH } from '../constants.ts';
import * as directory from '../store/directory.ts';
import { isStoreError } from '../store/errors.ts';
import { extensionOf, mediaTypeOf, safeFileName } from '../store/file-names.ts';
import { assignIds } from '../store/identity.ts';
import { importedIds } from '../store/import-map.ts';
import type { ItemExtras } from '../store/items.ts';
import * as items from '../store/items.ts';
import { labelKey } from '../store/text-rules.ts';
import type {
  ImportedId,
  ImportOptions,
  ImportSnapshot,
  ImportSummary,
  PlannedFile,
  PlannedFolder,
  PlannedItem,
  PlannedLogin,
} from './types.ts';

/** The role an imported login's rights are kept in. */
export function importedRoleName(login: string): string {
  return `imported:${login}`;
}

/** The source as the map and the summary name it: scheme, host, path; never credentials or query. */
export function sourceName(from: string): string {
  let url: URL;
  try {
    url = new URL(from);
  } catch {
    throw new VaultError('invalid_request', 'Expected --from to be an http(s) URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new VaultError('invalid_request', 'Expected --from to be an http(s) URL.');
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

/** What every step of the read phase shares. */
interface Reading {
  readonly client: VaultClient;
  readonly summary: ImportSummary;
  readonly progress: (phase: string, done: number, total: number) => void;
  /** Notes what is not imported, and why. */
  readonly skip: (what: string, reason: string) => void;
  /** The error to report or throw: whatever failed, the key never leaves in its message. */
  readonly redacted: (error: unknown) => VaultError;
}

/** The folders of the source the logins see, without personal ones, and each login's rights. */
interface SourceFolders {
  readonly folders: Map<number, Folder>;
  readonly rightsOf: Map<string, Map<number, string>>;
}

function itemValues(item: Item): Omit<ItemValues, 'folderId'> {
  const raw = item.raw;
  const text = (name: string) => (typeof raw[name] === 'string' ? (raw[name] as string) : '');
  return {
    label: item.label,
    password: item.password,
    description: item.description,
    login: item.login,
    email: item.email,
    url: item.url,
    // Not in TeamPass 2's read records; kept when a source sends them (TeamPass 3 does, as a list).
    tags: item.tags === undefined ? text('tags') : item.tags.join(' '),
    anyoneCanModify: text('anyone_can_modify') === '1' ? '1' : '0',
  };
}

/**
 * An item's TOTP secret and custom fields as the source sent them, checked as this vault stores
 * them; what cannot be carried is named in the summary (the item itself is still imported).
 */
function extrasOf(read: Reading, item: Item, what: string): ItemExtras {
  let otp: ItemOtpSecret | undefined;
  if (item.otpSecret !== undefined) {
    try {
      otp = items.checkOtpSecret(item.otpSecret);
      read.summary.carried.otp++;
    } catch (error) {
      if (!isStoreError(error)) throw error;
      read.skip(`${what}: its TOTP secret`, error.message);
    }
  } else if (item.otp === true) {
    read.skip(`${what}: its TOTP secret`, 'the source serves its codes, never the secret they are made from');
  }
  const fields = item.fields;
  if (fields !== undefined && fields.length > 0) read.summary.carried.fields++;
  return { otp, fields };
}

/**
 * A source's answer about one thing (no such user, no such operation, an answer TeamPass gives for
 * a user without roles) rather than a failure of the source as a whole.
 */
function isAnswerAboutThis(error: VaultError, unreadable: boolean): boolean {
  if (['network', 'unauthorized', 'rate_limited', 'server'].includes(error.code)) return false;
  return unreadable || error.code !== 'invalid_response';
}

/** Reads the folders each login sees, and its right on each; drops the ones this vault cannot hold. */
async function readFolders(read: Reading, logins: readonly string[]): Promise<SourceFolders> {
  const folders = new Map<number, Folder>();
  const rightsOf = new Map<string, Map<number, string>>();
  for (const [index, login] of logins.entries()) {
    read.progress('folders', index, logins.length);
    let found: Folder[];
    try {
      found = await read.client.folders.list({ login });
    } catch (error) {
      const failure = read.redacted(error);
      if (isAnswerAboutThis(failure, true)) {
        read.skip(`login ${login}`, `the source answered ${failure.code}: ${failure.message}`);
        continue;
      }
      throw failure;
    }
    const rights = new Map<number, string>();
    for (const folder of found) {
      if (folder.personal) {
        read.skip(`folder ${folder.id} (${folder.title})`, 'a personal folder: only its owner may see it');
        continue;
      }
      folders.set(folder.id, folder);
      rights.set(folder.id, folder.accessType);
    }
    rightsOf.set(login, rights);
  }
  read.progress('folders', logins.length, logins.length);
  for (const folder of folders.values()) {
    const title = folder.title;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL cannot be stored in PostgreSQL text.
    if (title.trim() === '' || title.length > MAX_TITLE_LENGTH || /\u0000/.test(title)) {
      read.skip(
        `folder ${folder.id}`,
        `a title this vault refuses (empty, NUL, or over ${MAX_TITLE_LENGTH} characters)`,
      );
      folders.delete(folder.id);
    }
  }
  return { folders, rightsOf };
}

/** The folders in the order they can be created: parents first. A parent no login sees is the root. */
function planFolders(folders: ReadonlyMap<number, Folder>): PlannedFolder[] {
  return [...folders.values()]
    .map((folder) => ({
      sourceId: folder.id,
      keepId: false,
      title: folder.title,
      sourceParent:
        folder.parentId !== undefined && folders.has(folder.parentId) ? folder.parentId : undefined,
      level: folder.level,
    }))
    .sort((a, b) => a.level - b.level || a.sourceId - b.sourceId);
}

/** Reads the items of the folders. */
async function readItems(read: Reading, folders: readonly PlannedFolder[]): Promise<Item[]> {
  const folderIds = folders.map((folder) => folder.sourceId);
  read.progress('items', 0, 1);
  let found: Item[] = [];
  if (folderIds.length > 0) {
    try {
      found = await read.client.items.list(folderIds).all();
    } catch (error) {
      throw read.redacted(error);
    }
  }
  read.progress('items', 1, 1);
  return found;
}

/** The items to add: checked as add/item would, labels unique here (the vault refuses similar labels). */
async function planItems(
  read: Reading,
  db: Queryable,
  sourceItems: readonly Item[],
  folders: ReadonlyMap<number, Folder>,
  imported: ReadonlyMap<string, number>,
): Promise<PlannedItem[]> {
  const taken = await items.takenLabelKeys(
    db,
    sourceItems.filter((item) => !imported.has(String(item.id))).map((item) => item.label),
  );
  const planned: PlannedItem[] = [];
  const seenLabels = new Set<string>();
  for (const item of sourceItems) {
    if (imported.has(String(item.id))) {
      read.summary.items.existing++;
      continue;
    }
    const key = labelKey(item.label);
    const what = `item ${item.id} (${item.label.slice(0, 60)})`;
    if (!folders.has(item.folderId)) {
      read.skip(what, `its folder ${item.folderId} is not imported`);
      continue;
    }
    const values = itemValues(item);
    try {
      items.checkItemValues({ ...values, folderId: '1' });
    } catch (error) {
      if (!isStoreError(error)) throw error;
      read.skip(what, error.message);
      continue;
    }
    if (taken.has(key) || seenLabels.has(key)) {
      read.skip(what, 'an item with a similar label is already in this vault');
      continue;
    }
    seenLabels.add(key);
    planned.push({
      sourceId: item.id,
      keepId: false,
      sourceFolder: item.folderId,
      values,
      extras: extrasOf(read, item, what),
    });
  }
  return planned;
}

/**
 * Reads the attachments not imported yet of the given source items, where the source has file
 * endpoints (their bytes are held in memory until the write).
 */
async function readFiles(
  read: Reading,
  itemIds: readonly number[],
  imported: ReadonlyMap<string, number>,
): Promise<PlannedFile[]> {
  const planned: PlannedFile[] = [];
  for (const [index, itemId] of itemIds.entries()) {
    read.progress('files', index, itemIds.length);
    let listed: FileInfo[];
    try {
      listed = await read.client.files.list(itemId);
    } catch (error) {
      const failure = read.redacted(error);
      if (isAnswerAboutThis(failure, false)) {
        read.skip('attachments', `the source has no file endpoints (${failure.code})`);
        break;
      }
      throw failure;
    }
    for (const file of listed) {
      if (imported.has(String(file.id))) {
        read.summary.files.existing++;
        continue;
      }
      let downloaded: DownloadedFile;
      try {
        downloaded = await read.client.files.download(file.id);
      } catch (error) {
        throw read.redacted(error);
      }
      const name = safeFileName(file.name || downloaded.fileName || `file-${file.id}`) || `file-${file.id}`;
      planned.push({
        sourceId: file.id,
        sourceItem: itemId,
        name,
        mediaType: mediaTypeOf(file.type || downloaded.contentType, extensionOf(name)),
        bytes: downloaded.bytes,
      });
    }
  }
  read.progress('files', itemIds.length, itemIds.length);
  return planned;
}

/** Users and rights: one role per login, holding what the source reports for that login. */
async function planLogins(
  read: Reading,
  db: Queryable,
  rightsOf: ReadonlyMap<string, ReadonlyMap<number, string>>,
  importedFolders: ReadonlyMap<string, number>,
): Promise<PlannedLogin[]> {
  const userRoles = new Map((await directory.listUsers(db)).map((user) => [user.login, user.roles]));
  const roles = new Map((await directory.listRoles(db)).map((role) => [role.name, role]));
  const planned: PlannedLogin[] = [];
  for (const [login, rights] of rightsOf) {
    if (!/^[A-Za-z0-9._@-]{1,100}$/.test(login)) {
      read.skip(`login ${login}`, 'not a login this vault accepts (letters, digits, ".", "_", "@" or "-")');
      continue;
    }
    const role = roles.get(importedRoleName(login));
    const grants: [number, AccessType][] = [];
    for (const [folderId, access] of rights) {
      const right = ACCESS_TYPES.find((candidate) => candidate === access);
      if (right === undefined) continue;
      const target = importedFolders.get(String(folderId));
      const same =
        target !== undefined && role?.rights.some((r) => r.folderId === target && r.access === right);
      if (same) read.summary.rights.existing++;
      else grants.push([folderId, right]);
    }
    const had = userRoles.get(login);
    if (had) read.summary.users.existing++;
    planned.push({
      login,
      create: had === undefined,
      assign: !had?.includes(importedRoleName(login)),
      roleExists: role !== undefined,
      grants,
    });
  }
  return planned;
}

/**
 * Reads the source and decides what to import into this vault, writing nothing.
 *
 * @param db This vault's database (read only).
 * @param options The source and what to copy.
 * @returns The snapshot: what to add, what is here already, the summary.
 */
export async function readImport(db: Queryable, options: ImportOptions): Promise<ImportSnapshot> {
  const source = sourceName(options.from);
  const logins = [...new Set(options.logins)];
  const client = createVaultClient({
    baseUrl: options.from.replace(/[?#].*$/, '').replace(/\/+$/, ''),
    auth: credentialsFrom({
      apiKey: options.apiKey,
      // A source that signs in per user (TeamPass 3) signs in as the one login given.
      login: logins.length === 1 ? logins[0] : undefined,
      password: options.password,
    }),
    timeoutMs: 60_000,
    fetch: options.fetch,
    // TOTP secrets travel from the source into this vault's sealed column, nowhere else.
    teampass3: { keepOtpSecrets: true },
  });
  try {
    return await readWith(client, db, options, source, logins);
  } finally {
    // TeamPass 3: signs the session out; nothing to do on the legacy API.
    await client.dispose().catch(() => {});
  }
}

/**
 * What the source's capabilities mean for the import, checked before anything else is read: the
 * credentials it needs, which logins it can read, whether it has attachments.
 *
 * @returns Whether attachments are read.
 * @throws {VaultError} `invalid_request` for a source that needs a password the import was not
 *   given, or more than one login (or another account's) on a source that reads only its own.
 */
async function checkSource(
  read: Reading,
  options: ImportOptions,
  logins: readonly string[],
): Promise<{ files: boolean }> {
  let capabilities: ServerCapabilities;
  try {
    capabilities = await read.client.capabilities();
  } catch (error) {
    throw read.redacted(error);
  }
  // Decided on capabilities; the server's name is only for the sentence.
  const source = capabilities.server === 'teampass3' ? 'TeamPass 3' : 'This source';
  if (capabilities.credentials === 'password' && !options.password) {
    throw new VaultError(
      'invalid_request',
      `${source} signs in per account, with the login, the account's password and its API key: give the password on stdin (--password-stdin) or in VAULTLINE_IMPORT_PASSWORD.`,
    );
  }
  if (!capabilities.otherUsers && logins.length !== 1) {
    throw new VaultError(
      'invalid_request',
      `${source} runs every call as the signed-in account, which sees its own folders only: give exactly one --login, the account to sign in as (received ${logins.length}).`,
    );
  }
  if (capabilities.files === false) {
    read.skip('attachments', `${source} has no attachments: none were read or imported`);
  }
  if (capabilities.files === 'unknown' && !options.attachments) {
    read.skip(
      'attachments',
      'not read: this source does not say it has file endpoints (TeamPass 2\'s API has none, and answers read/listfiles with "No results" for every item); any attachments stay there. A fork that has them: run again with --attachments (one read/listfiles per item)',
    );
  }
  if (capabilities.server === 'teampass-compatible') {
    read.skip(
      'TOTP secrets and custom fields',
      "TeamPass 2's API does not send them: any its items hold stay there",
    );
  }
  return {
    files: capabilities.files === true || (capabilities.files === 'unknown' && options.attachments === true),
  };
}

/** The ids a dry run reports: what keeps its source id, and what would get another (and which). */
function predictedIds(
  folders: readonly (PlannedFolder & { readonly id: number })[],
  items: readonly (PlannedItem & { readonly id: number })[],
  files: readonly PlannedFile[],
): ImportSummary['ids'] {
  const kept = [...folders, ...items].filter((planned) => planned.keepId).length;
  const changed: ImportedId[] = [
    ...folders
      .filter((f) => !f.keepId)
      .map((f) => ({ kind: 'folder' as const, source: f.sourceId, id: f.id })),
    ...items.filter((i) => !i.keepId).map((i) => ({ kind: 'item' as const, source: i.sourceId, id: i.id })),
    ...files.map((f) => ({ kind: 'file' as const, source: f.sourceId, id: undefined })),
  ];
  return { kept, changed };
}

async function readWith(
  client: VaultClient,
  db: Queryable,
  options: ImportOptions,
  source: string,
  logins: readonly string[],
): Promise<ImportSnapshot> {
  const summary: ImportSummary = {
    source,
    dryRun: options.dryRun,
    folders: { added: 0, existing: 0 },
    items: { added: 0, existing: 0 },
    files: { added: 0, existing: 0 },
    users: { added: 0, existing: 0 },
    rights: { added: 0, existing: 0 },
    carried: { otp: 0, fields: 0 },
    ids: { kept: 0, changed: [] },
    skipped: [],
  };
  const read: Reading = {
    client,
    summary,
    progress: options.onProgress ?? (() => {}),
    skip: (what, reason) => summary.skipped.push({ what, reason }),
    redacted: (error) => {
      const vaultError = error instanceof VaultError ? error : toVaultError(error, client.redact);
      let message = client.redact(vaultError.message);
      for (const secret of [options.apiKey, options.password]) {
        if (secret) message = message.split(secret).join('[REDACTED]');
      }
      return new VaultError(vaultError.code, message);
    },
  };

  const { files: withAttachments } = await checkSource(read, options, logins);
  const { folders, rightsOf } = await readFolders(read, logins);
  const planned = planFolders(folders);
  const sourceItems = await readItems(read, planned);
  const imported = {
    folders: await importedIds(db, source, 'folder'),
    items: await importedIds(db, source, 'item'),
    files: await importedIds(db, source, 'file'),
  };
  const plannedItems = await planItems(read, db, sourceItems, folders, imported.items);
  // Attachments of every imported item, new or from an earlier run.
  const withFiles = [
    ...sourceItems.filter((item) => imported.items.has(String(item.id))).map((item) => item.id),
    ...plannedItems.map((item) => item.sourceId),
  ];
  const files = withAttachments ? await readFiles(read, withFiles, imported.files) : [];
  const plannedLogins = await planLogins(read, db, rightsOf, imported.folders);

  // Each new folder and item keeps its source id where no folder or item here has it (all of
  // them in an empty vault), the others get ids past every id kept: the ids the write phase gives
  // when nothing else is added meanwhile (it decides again under its lock).
  const newPlanned = planned.filter((folder) => !imported.folders.has(String(folder.sourceId)));
  const folderIds = await assignIds(
    db,
    'folders',
    newPlanned.map((folder) => folder.sourceId),
  );
  const itemIds = await assignIds(
    db,
    'items',
    plannedItems.map((item) => item.sourceId),
  );
  const newFolders = newPlanned.map((folder, index) => ({
    ...folder,
    keepId: folderIds[index] === folder.sourceId,
    id: folderIds[index]!,
  }));
  const newItems = plannedItems.map((item, index) => ({
    ...item,
    keepId: itemIds[index] === item.sourceId,
    id: itemIds[index]!,
  }));
  summary.ids = predictedIds(newFolders, newItems, files);
  summary.folders.existing = planned.length - newFolders.length;
  summary.folders.added = newFolders.length;
  summary.items.added = newItems.length;
  summary.files.added = files.length;
  summary.users.added = plannedLogins.filter((login) => login.create).length;
  summary.rights.added = plannedLogins.reduce((sum, login) => sum + login.grants.length, 0);
  return {
    source,
    summary,
    folders: newFolders,
    items: newItems,
    files,
    logins: plannedLogins,
    imported: { folders: imported.folders, items: imported.items },
  };
}
