/**
 * The import's write phase: applies a snapshot of the read phase to this vault in one transaction,
 * with the audit records and the import map: all of it, or nothing.
 *
 * @module
 */

import { withinTransaction } from '@vaultline/store';
import type { Actor } from '../store/actor.ts';
import * as directory from '../store/directory.ts';
import { extensionOf } from '../store/file-names.ts';
import * as files from '../store/files.ts';
import * as folders from '../store/folders.ts';
import { advanceIdentity, assignIds, lockForIds } from '../store/identity.ts';
import { recordImported } from '../store/import-map.ts';
import * as items from '../store/items.ts';
import { createStoreContext } from '../store/store-context.ts';
import type { Vault } from '../vault.ts';
import { importedRoleName } from './read-import.ts';
import type { ImportedId, ImportSnapshot, ImportSummary } from './types.ts';

/**
 * Writes what the read phase decided, in one transaction. Each new folder and item keeps its
 * source id where no folder or item here has it, and the others get ids past every id kept
 * (decided again here, under a lock that holds off other writers until the end); the identities
 * are moved past the largest id last, so that a failed import leaves them where they were.
 *
 * @param vault This vault.
 * @param actor Who imports: every write is audited with it.
 * @param snapshot What to add.
 * @returns The ids of what was added: kept, and every one that got another.
 */
export async function writeImport(
  vault: Vault,
  actor: Actor,
  snapshot: ImportSnapshot,
): Promise<ImportSummary['ids']> {
  const { source } = snapshot;
  const changed: ImportedId[] = [];
  let kept = 0;
  await vault.db.transaction(async (tx) => {
    const db = withinTransaction(vault.db.kind, tx);
    const ctx = createStoreContext(db, vault.ctx.box, 0);
    await lockForIds(tx);
    const folderIds = await assignIds(
      tx,
      'folders',
      snapshot.folders.map((folder) => folder.sourceId),
    );
    const folderIdOf = new Map(snapshot.imported.folders);
    for (const [index, folder] of snapshot.folders.entries()) {
      const parent = folder.sourceParent === undefined ? 0 : folderIdOf.get(String(folder.sourceParent));
      const keep = folderIds[index] === folder.sourceId;
      const id = await folders.addFolder(
        ctx,
        actor,
        {
          title: folder.title,
          parentId: parent ?? 0,
          complexityLevel: 0,
          renewalPeriod: 0,
          personal: false,
        },
        { id: folderIds[index] },
      );
      if (keep) kept++;
      else changed.push({ kind: 'folder', source: folder.sourceId, id });
      folderIdOf.set(String(folder.sourceId), id);
    }
    await recordImported(
      tx,
      source,
      'folder',
      snapshot.folders.map(
        (folder) => [String(folder.sourceId), folderIdOf.get(String(folder.sourceId))!] as const,
      ),
    );
    const placed = snapshot.items.filter((item) => folderIdOf.has(String(item.sourceFolder)));
    const itemIds = await assignIds(
      tx,
      'items',
      placed.map((item) => item.sourceId),
    );
    const ids = await items.addItems(
      ctx,
      actor,
      placed.map((item) => ({
        ...item.values,
        folderId: String(folderIdOf.get(String(item.sourceFolder))!),
      })),
      tx,
      itemIds,
    );
    for (const [index, item] of placed.entries()) {
      if (item.extras.otp !== undefined || item.extras.fields !== undefined)
        await items.setItemExtras(tx, ctx, ids[index]!, item.extras);
      if (ids[index] === item.sourceId) kept++;
      else changed.push({ kind: 'item', source: item.sourceId, id: ids[index]! });
    }
    await recordImported(
      tx,
      source,
      'item',
      placed.map((item, index) => [String(item.sourceId), ids[index]!] as const),
    );
    const itemIdOf = new Map(snapshot.imported.items);
    for (const [index, item] of placed.entries()) itemIdOf.set(String(item.sourceId), ids[index]!);
    const fileIds: (readonly [string, number])[] = [];
    for (const file of snapshot.files) {
      const itemId = itemIdOf.get(String(file.sourceItem));
      if (itemId === undefined) continue;
      const id = await files.addFile(ctx, actor, itemId, {
        name: file.name,
        mediaType: file.mediaType,
        extension: extensionOf(file.name),
        bytes: file.bytes,
      });
      fileIds.push([String(file.sourceId), id]);
      changed.push({ kind: 'file', source: file.sourceId, id });
    }
    await recordImported(tx, source, 'file', fileIds);
    for (const login of snapshot.logins) {
      if (login.create) await directory.createUser(db, actor, { login: login.login });
      const role = importedRoleName(login.login);
      if (!login.roleExists) await directory.createRole(db, actor, { name: role });
      if (login.assign) await directory.assignRole(db, actor, login.login, role);
      for (const [sourceFolder, right] of login.grants) {
        const target = folderIdOf.get(String(sourceFolder));
        if (target !== undefined) await directory.grant(db, actor, role, target, right);
      }
    }
    if (snapshot.folders.length > 0) await advanceIdentity(tx, 'folders');
    if (placed.length > 0) await advanceIdentity(tx, 'items');
  });
  vault.ctx.invalidate();
  return { kept, changed };
}
