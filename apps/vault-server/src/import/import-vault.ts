/**
 * `vaultline-server import`: copies a vault that speaks the API (TeamPass, or another Vaultline
 * server) into this one, through the protocol client. Everything is read from the source first
 * and written here in one transaction: a failure leaves nothing half-imported.
 *
 * @module
 */

import {
  ACCESS_TYPES,
  createVaultClient,
  type Folder,
  type Item,
  toVaultError,
  type VaultClient,
  VaultError,
} from '@vaultline/protocol';
import type { ItemValues } from '@vaultline/protocol/wire';
import { withinTransaction } from '@vaultline/store';
import { MAX_TITLE_LENGTH } from '../constants.ts';
import { extensionOf, mediaTypeOf, safeFileName } from '../http/file-names.ts';
import type { Actor } from '../store/actor.ts';
import * as directory from '../store/directory.ts';
import { isStoreError } from '../store/errors.ts';
import * as files from '../store/files.ts';
import * as folders from '../store/folders.ts';
import { importedIds, recordImported } from '../store/import-map.ts';
import * as items from '../store/items.ts';
import { createStoreContext } from '../store/store-context.ts';
import { labelKey } from '../store/text-rules.ts';
import type { Vault } from '../vault.ts';

/** Options of {@link importVault}. */
export interface ImportOptions {
  /** The source's base URL (the part before `/api/index.php`). */
  from: string;
  /** The source's API key: sent to the source only, never printed nor logged. */
  apiKey: string;
  /** The logins whose folders (and rights) are copied: the API lists folders per user only. */
  logins: readonly string[];
  /** Reads the source and reports what would be added, without writing. */
  dryRun: boolean;
  /** The `fetch` for the source; the global one by default. */
  fetch?: typeof globalThis.fetch | undefined;
  /** Told how far the import is: `done` of `total` steps of a phase. */
  onProgress?: ((phase: string, done: number, total: number) => void) | undefined;
}

/** Counts of one kind of thing: added now, and already here from an earlier run. */
export interface ImportCount {
  added: number;
  existing: number;
}

/** What an import did (or, dry, would do). */
export interface ImportSummary {
  /** The source's URL, without credentials or query. */
  source: string;
  dryRun: boolean;
  folders: ImportCount;
  items: ImportCount;
  files: ImportCount;
  /** Users created here, and users that were here already. */
  users: ImportCount;
  /** Rights set on the logins' roles (one role per login, `imported:<login>`). */
  rights: ImportCount;
  /** What was not imported, and why. */
  skipped: { what: string; reason: string }[];
}

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

interface PlannedFolder {
  sourceId: number;
  title: string;
  /** The source parent, when it is imported too; else the root. */
  sourceParent: number | undefined;
  level: number;
}

interface PlannedFile {
  sourceId: number;
  sourceItem: number;
  name: string;
  mediaType: string;
  bytes: Uint8Array;
}

function itemValues(item: Item, folderId: number): ItemValues {
  const raw = item.raw;
  const text = (name: string) => (typeof raw[name] === 'string' ? (raw[name] as string) : '');
  return {
    label: item.label,
    password: item.password,
    description: item.description,
    folderId: String(folderId),
    login: item.login,
    email: item.email,
    url: item.url,
    // Not in TeamPass's read records; kept when a source sends them.
    tags: text('tags'),
    anyoneCanModify: text('anyone_can_modify') === '1' ? '1' : '0',
  };
}

/**
 * A source's answer about one thing (no such user, no such operation, an answer TeamPass gives for
 * a user without roles) rather than a failure of the source as a whole.
 */
function isAnswerAboutThis(error: VaultError, unreadable: boolean): boolean {
  if (['network', 'unauthorized', 'rate_limited', 'server'].includes(error.code)) return false;
  return unreadable || error.code !== 'invalid_response';
}

/**
 * Imports a source vault into this one.
 *
 * @param vault This vault.
 * @param actor Who imports: every write is audited with it.
 * @param options The source and what to copy.
 * @returns The summary.
 */
export async function importVault(
  vault: Vault,
  actor: Actor,
  options: ImportOptions,
): Promise<ImportSummary> {
  const source = sourceName(options.from);
  const progress = options.onProgress ?? (() => {});
  const client: VaultClient = createVaultClient({
    baseUrl: options.from.replace(/[?#].*$/, '').replace(/\/+$/, ''),
    apiKey: options.apiKey,
    timeoutMs: 60_000,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  // Whatever fails, the key never leaves in a message.
  const redacted = (error: unknown): Error => {
    const vaultError = error instanceof VaultError ? error : toVaultError(error);
    return new VaultError(
      vaultError.code,
      client.redact(vaultError.message).split(options.apiKey).join('[REDACTED]'),
    );
  };
  const summary: ImportSummary = {
    source,
    dryRun: options.dryRun,
    folders: { added: 0, existing: 0 },
    items: { added: 0, existing: 0 },
    files: { added: 0, existing: 0 },
    users: { added: 0, existing: 0 },
    rights: { added: 0, existing: 0 },
    skipped: [],
  };
  const skip = (what: string, reason: string) => summary.skipped.push({ what, reason });

  // 1. Read the source: folders and rights per login, then items, then attachments.
  const sourceFolders = new Map<number, Folder>();
  const rightsOf = new Map<string, Map<number, string>>();
  const logins = [...new Set(options.logins)];
  for (const [index, login] of logins.entries()) {
    progress('folders', index, logins.length);
    let found: Folder[];
    try {
      found = await client.readUserFolders({ login });
    } catch (error) {
      const failure = redacted(error);
      if (failure instanceof VaultError && isAnswerAboutThis(failure, true)) {
        skip(`login ${login}`, `the source answered ${failure.code}: ${failure.message}`);
        continue;
      }
      throw failure;
    }
    const rights = new Map<number, string>();
    for (const folder of found) {
      if (folder.personal) {
        skip(`folder ${folder.id} (${folder.title})`, 'a personal folder: only its owner may see it');
        continue;
      }
      sourceFolders.set(folder.id, folder);
      rights.set(folder.id, folder.accessType);
    }
    rightsOf.set(login, rights);
  }
  progress('folders', logins.length, logins.length);
  for (const folder of sourceFolders.values()) {
    const title = folder.title;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL cannot be stored in PostgreSQL text.
    if (title.trim() === '' || title.length > MAX_TITLE_LENGTH || /\u0000/.test(title)) {
      skip(
        `folder ${folder.id}`,
        `a title this vault refuses (empty, NUL, or over ${MAX_TITLE_LENGTH} characters)`,
      );
      sourceFolders.delete(folder.id);
    }
  }
  const planned: PlannedFolder[] = [...sourceFolders.values()]
    .map((folder) => ({
      sourceId: folder.id,
      title: folder.title,
      sourceParent:
        folder.parentId !== undefined && sourceFolders.has(folder.parentId) ? folder.parentId : undefined,
      level: folder.level,
    }))
    .sort((a, b) => a.level - b.level || a.sourceId - b.sourceId);

  const folderIds = planned.map((folder) => folder.sourceId);
  progress('items', 0, 1);
  let sourceItems: Item[] = [];
  if (folderIds.length > 0) {
    try {
      sourceItems = await client.readFolders({ ids: folderIds });
    } catch (error) {
      throw redacted(error);
    }
  }
  progress('items', 1, 1);

  const existingFolders = await importedIds(vault.db, source, 'folder');
  const existingItems = await importedIds(vault.db, source, 'item');
  const existingFiles = await importedIds(vault.db, source, 'file');

  // Items: checked as add/item would, labels unique here (the vault refuses similar labels).
  const taken = await items.takenLabelKeys(
    vault.db,
    sourceItems.filter((item) => !existingItems.has(String(item.id))).map((item) => item.label),
  );
  const newItems: Item[] = [];
  const seenLabels = new Set<string>();
  for (const item of sourceItems) {
    if (existingItems.has(String(item.id))) {
      summary.items.existing++;
      continue;
    }
    const key = labelKey(item.label);
    const what = `item ${item.id} (${item.label.slice(0, 60)})`;
    if (!sourceFolders.has(item.folderId)) {
      skip(what, `its folder ${item.folderId} is not imported`);
      continue;
    }
    try {
      items.checkItemValues(itemValues(item, 1));
    } catch (error) {
      if (!isStoreError(error)) throw error;
      skip(what, error.message);
      continue;
    }
    if (taken.has(key) || seenLabels.has(key)) {
      skip(what, 'an item with a similar label is already in this vault');
      continue;
    }
    seenLabels.add(key);
    newItems.push(item);
  }

  // Attachments, where the source has file endpoints: of every imported item, new or earlier.
  const plannedFiles: PlannedFile[] = [];
  const itemsWithFiles = [...sourceItems.filter((item) => existingItems.has(String(item.id))), ...newItems];
  let filesSupported = true;
  for (const [index, item] of itemsWithFiles.entries()) {
    progress('files', index, itemsWithFiles.length);
    if (!filesSupported) break;
    let listed: Awaited<ReturnType<VaultClient['listFiles']>>;
    try {
      listed = await client.listFiles({ itemId: item.id });
    } catch (error) {
      const failure = redacted(error);
      if (failure instanceof VaultError && isAnswerAboutThis(failure, false)) {
        filesSupported = false;
        skip('attachments', `the source has no file endpoints (${failure.code})`);
        break;
      }
      throw failure;
    }
    for (const file of listed) {
      if (existingFiles.has(String(file.id))) {
        summary.files.existing++;
        continue;
      }
      let downloaded: Awaited<ReturnType<VaultClient['downloadFile']>>;
      try {
        downloaded = await client.downloadFile({ id: file.id });
      } catch (error) {
        throw redacted(error);
      }
      const name = safeFileName(file.name || downloaded.fileName || `file-${file.id}`) || `file-${file.id}`;
      plannedFiles.push({
        sourceId: file.id,
        sourceItem: item.id,
        name,
        mediaType: mediaTypeOf(file.type || downloaded.contentType, extensionOf(name)),
        bytes: downloaded.bytes,
      });
    }
  }
  progress('files', itemsWithFiles.length, itemsWithFiles.length);

  // Users and rights: one role per login, holding what the source reports for that login.
  const userRoles = new Map((await directory.listUsers(vault.db)).map((user) => [user.login, user.roles]));
  const roles = new Map((await directory.listRoles(vault.db)).map((role) => [role.name, role]));
  const grantable = new Set<string>(ACCESS_TYPES);
  const loginPlans: {
    login: string;
    create: boolean;
    assign: boolean;
    grants: [number, (typeof ACCESS_TYPES)[number]][];
  }[] = [];
  for (const [login, rights] of rightsOf) {
    if (!/^[A-Za-z0-9._@-]{1,100}$/.test(login)) {
      skip(`login ${login}`, 'not a login this vault accepts (letters, digits, ".", "_", "@" or "-")');
      continue;
    }
    const role = roles.get(importedRoleName(login));
    const grants: [number, (typeof ACCESS_TYPES)[number]][] = [];
    for (const [folderId, access] of rights) {
      const right = ACCESS_TYPES.find((candidate) => candidate === access);
      if (right === undefined || !grantable.has(right)) continue;
      const target = existingFolders.get(String(folderId));
      const same =
        target !== undefined && role?.rights.some((r) => r.folderId === target && r.access === right);
      if (same) summary.rights.existing++;
      else grants.push([folderId, right]);
    }
    const had = userRoles.get(login);
    if (had) summary.users.existing++;
    loginPlans.push({
      login,
      create: had === undefined,
      assign: !had?.includes(importedRoleName(login)),
      grants,
    });
  }

  const newFolders = planned.filter((folder) => !existingFolders.has(String(folder.sourceId)));
  summary.folders.existing = planned.length - newFolders.length;
  summary.folders.added = newFolders.length;
  summary.items.added = newItems.length;
  summary.files.added = plannedFiles.length;
  summary.users.added = loginPlans.filter((plan) => plan.create).length;
  summary.rights.added = loginPlans.reduce((sum, plan) => sum + plan.grants.length, 0);
  if (options.dryRun) return summary;

  // 2. Write everything in one transaction: all of it, or nothing.
  progress('writing', 0, 1);
  await vault.db.transaction(async (tx) => {
    const db = withinTransaction(vault.db.kind, tx);
    const ctx = createStoreContext(db, vault.ctx.box, 0);
    const folderIdOf = new Map(existingFolders);
    for (const folder of newFolders) {
      const parent = folder.sourceParent === undefined ? 0 : folderIdOf.get(String(folder.sourceParent));
      const id = await folders.addFolder(ctx, actor, {
        title: folder.title,
        parentId: parent ?? 0,
        complexityLevel: 0,
        renewalPeriod: 0,
        personal: false,
      });
      folderIdOf.set(String(folder.sourceId), id);
    }
    await recordImported(
      tx,
      source,
      'folder',
      newFolders.map(
        (folder) => [String(folder.sourceId), folderIdOf.get(String(folder.sourceId))!] as const,
      ),
    );
    const placed = newItems.filter((item) => folderIdOf.has(String(item.folderId)));
    const ids = await items.addItems(
      ctx,
      actor,
      placed.map((item) => itemValues(item, folderIdOf.get(String(item.folderId))!)),
      tx,
    );
    await recordImported(
      tx,
      source,
      'item',
      placed.map((item, index) => [String(item.id), ids[index]!] as const),
    );
    const itemIdOf = new Map(existingItems);
    for (const [index, item] of placed.entries()) itemIdOf.set(String(item.id), ids[index]!);
    const fileIds: (readonly [string, number])[] = [];
    for (const file of plannedFiles) {
      const itemId = itemIdOf.get(String(file.sourceItem));
      if (itemId === undefined) continue;
      const id = await files.addFile(ctx, actor, itemId, {
        name: file.name,
        mediaType: file.mediaType,
        extension: extensionOf(file.name),
        bytes: file.bytes,
      });
      fileIds.push([String(file.sourceId), id]);
    }
    await recordImported(tx, source, 'file', fileIds);
    for (const plan of loginPlans) {
      if (plan.create) await directory.createUser(db, actor, { login: plan.login });
      const role = importedRoleName(plan.login);
      if (!roles.has(role)) await directory.createRole(db, actor, { name: role });
      if (plan.assign) await directory.assignRole(db, actor, plan.login, role);
      for (const [sourceFolder, right] of plan.grants) {
        const target = folderIdOf.get(String(sourceFolder));
        if (target !== undefined) await directory.grant(db, actor, role, target, right);
      }
    }
  });
  vault.ctx.invalidate();
  progress('writing', 1, 1);
  return summary;
}
