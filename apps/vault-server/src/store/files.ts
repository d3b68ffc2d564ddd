import { permissionsOf } from '@vaultline/protocol';
import type { Principal } from './access.ts';
import type { Actor } from './actor.ts';
import { notFound, refused } from './errors.ts';
import type { StoreContext } from './store-context.ts';
import { auditWrite } from './write-audit.ts';

/** A read/listfiles record. */
export interface FileRecord {
  id: string;
  name: string;
  type: string;
  extension: string;
  size: string;
}

/** An attachment to store. */
export interface NewFile {
  name: string;
  mediaType: string;
  extension: string;
  bytes: Uint8Array;
}

async function itemFolder(ctx: StoreContext, principal: Principal, itemId: number, fresh = false) {
  const rows = await ctx.db.query<{ folder_id: number; anyone_can_modify: boolean }>(
    'SELECT folder_id, anyone_can_modify FROM items WHERE id = $1',
    [itemId],
  );
  const row = rows[0];
  const caps = permissionsOf(
    row ? (await ctx.rights(principal, fresh)).get(Number(row.folder_id)) : undefined,
  );
  if (!row || !caps.read) throw notFound(`No item with id ${itemId}.`);
  return { caps, anyoneCanModify: row.anyone_can_modify };
}

/**
 * Checks that the caller may attach files to an item (edit right, or "anyone can modify").
 *
 * @returns Nothing; throws 404 or 403.
 */
export async function checkCanAttach(ctx: StoreContext, principal: Principal, itemId: number) {
  const { caps, anyoneCanModify } = await itemFolder(ctx, principal, itemId, true);
  if (!caps.edit && !anyoneCanModify) {
    throw refused(`This key may not attach files to item ${itemId}.`);
  }
}

/** add/file: stores one encrypted attachment. */
export async function addFile(
  ctx: StoreContext,
  actor: Actor,
  itemId: number,
  file: NewFile,
): Promise<number> {
  await checkCanAttach(ctx, actor.principal, itemId);
  return ctx.db.transaction(async (tx) => {
    const items = await tx.query('SELECT 1 FROM items WHERE id = $1 FOR UPDATE', [itemId]);
    if (items.length === 0) throw notFound(`No item with id ${itemId}.`);
    const [row] = await tx.query<{ id: number }>(
      'INSERT INTO files (item_id, name, media_type, extension, size, content) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id',
      [itemId, file.name, file.mediaType, file.extension, file.bytes.byteLength, ctx.box.seal(file.bytes)],
    );
    const id = Number(row!.id);
    await auditWrite(tx, actor, 'addFile', `item ${itemId} file ${id}`);
    return id;
  });
}

/** read/listfiles: an item's attachments keyed by id. */
export async function listFiles(ctx: StoreContext, principal: Principal, itemId: number) {
  await itemFolder(ctx, principal, itemId);
  const rows = await ctx.db.query<{
    id: number;
    name: string;
    media_type: string;
    extension: string;
    size: number;
  }>('SELECT id, name, media_type, extension, size FROM files WHERE item_id = $1 ORDER BY id', [itemId]);
  const out: Record<string, FileRecord> = {};
  for (const row of rows) {
    out[String(row.id)] = {
      id: String(row.id),
      name: row.name,
      type: row.media_type,
      extension: row.extension,
      size: String(row.size),
    };
  }
  return out;
}

/** read/files: one attachment's bytes, decrypted. */
export async function readFile(ctx: StoreContext, principal: Principal, fileId: number) {
  const rows = await ctx.db.query<{ item_id: number; name: string; media_type: string; content: Uint8Array }>(
    'SELECT item_id, name, media_type, content FROM files WHERE id = $1',
    [fileId],
  );
  const row = rows[0];
  if (!row) throw notFound(`No file with id ${fileId}.`);
  try {
    await itemFolder(ctx, principal, Number(row.item_id));
  } catch {
    throw notFound(`No file with id ${fileId}.`);
  }
  return {
    name: row.name,
    mediaType: row.media_type,
    bytes: ctx.box.open(row.content),
    itemId: Number(row.item_id),
  };
}
