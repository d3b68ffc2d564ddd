/**
 * Attachments: stored in chunks (see `crypto/chunk-cipher.ts`), written and read one chunk at a
 * time, so a transfer holds about one chunk in memory whatever the file's size.
 *
 * A `files` row holds what a file is (name, media type, size, chunk count, its content key sealed
 * by the master key); `file_chunks` holds its sealed chunks, one row each (`file_id`, `seq`). An
 * upload is stored as it arrives under a row that is not `complete` (no item yet, invisible to
 * every read); one transaction then attaches it to its item with its audit record. An upload that
 * fails, is refused or is cut off is deleted; one left by a crash is swept once it is older than
 * {@link STALE_UPLOAD_MS}.
 *
 * Rows written before migration 6 (`format` 1) hold one AES-256-GCM blob in `files.content`;
 * {@link upgradeLegacyFiles} rewrites them in chunks when a vault is opened, and `readFile` the one it
 * reads (one an instance of the previous release uploaded during an upgrade: `db/older-instances.ts`).
 *
 * @module
 */

import { permissionsOf } from '@vaultline/protocol';
import type { Database, Queryable } from '@vaultline/store';
import {
  CHUNK_BYTES,
  type ContentKey,
  IntegrityError,
  integrityError,
  newContentKey,
  openContentKey,
} from '../crypto/chunk-cipher.ts';
import { type OpenInParts, SEALED_HEADER_BYTES, type SecretBox } from '../crypto/secret-box.ts';
import type { Principal } from './access.ts';
import type { Actor } from './actor.ts';
import { conflict, notFound, refused } from './errors.ts';
import type { StoreContext } from './store-context.ts';
import { auditWrite } from './write-audit.ts';

/** How a `files` row holds its content: one sealed blob (before migration 6), or chunks. */
const FORMAT_BLOB = 1;
const FORMAT_CHUNKS = 2;

/** An upload not completed after this long was left by a crash (uploads end within the request timeout). */
export const STALE_UPLOAD_MS = 15 * 60 * 1000;

/** A read/listfiles record. */
export interface FileRecord {
  id: string;
  name: string;
  type: string;
  extension: string;
  size: string;
}

/**
 * One read/listfiles record: the one shape both stores (the database's, an upstream's) answer.
 *
 * @param file The attachment.
 * @returns The record, every value text.
 */
export function fileRecord(file: {
  id: number;
  name: string;
  type: string;
  extension: string;
  size: number;
}): FileRecord {
  return {
    id: String(file.id),
    name: file.name,
    type: file.type,
    extension: file.extension,
    size: String(file.size),
  };
}

/** What an attachment is, apart from its bytes. */
export interface FileMeta {
  name: string;
  mediaType: string;
  extension: string;
}

/** An attachment to store whose bytes are all at hand (the import). */
export interface NewFile extends FileMeta {
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

/** Writes one file's chunks in order, holding at most one chunk's plaintext. */
class ChunkWriter {
  size = 0;
  chunks = 0;
  readonly #db: Queryable;
  readonly #key: ContentKey;
  readonly #fileId: number;
  #buffer: Buffer | undefined;
  #fill = 0;

  constructor(db: Queryable, key: ContentKey, fileId: number) {
    this.#db = db;
    this.#key = key;
    this.#fileId = fileId;
  }

  /** Adds bytes; a full chunk is stored once more bytes arrive (so the last one is known). */
  async write(bytes: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < bytes.byteLength) {
      this.#buffer ??= Buffer.allocUnsafe(CHUNK_BYTES);
      if (this.#fill === CHUNK_BYTES) await this.#flush(false);
      const taken = Math.min(CHUNK_BYTES - this.#fill, bytes.byteLength - offset);
      this.#buffer.set(bytes.subarray(offset, offset + taken), this.#fill);
      this.#fill += taken;
      offset += taken;
      this.size += taken;
    }
  }

  /** Stores the last chunk (an empty file has one, empty). */
  async end(): Promise<void> {
    await this.#flush(true);
    this.#buffer = undefined;
  }

  async #flush(last: boolean): Promise<void> {
    const plain = this.#buffer ? this.#buffer.subarray(0, this.#fill) : Buffer.alloc(0);
    // Sealing copies the bytes: the buffer is free for the next chunk at once.
    const [body, tag] = this.#key.seal(this.#fileId, this.chunks, last, plain);
    this.#fill = 0;
    await this.#db.query(
      'INSERT INTO file_chunks (file_id, seq, content) VALUES ($1, $2, $3::bytea || $4::bytea)',
      [this.#fileId, this.chunks, body, tag],
    );
    this.chunks++;
  }
}

/** An attachment being stored; invisible until {@link FileUpload.complete}. */
export interface FileUpload {
  /** Its id. */
  readonly id: number;
  /** Stores the next bytes (call one at a time). */
  write(bytes: Uint8Array): Promise<void>;
  /** Stores the last chunk: the bytes are all there. */
  end(): Promise<void>;
  /**
   * Attaches it to its item, with its audit record, in one transaction.
   *
   * @returns Its id.
   */
  complete(actor: Actor, itemId: number): Promise<number>;
  /** Deletes what was stored of it; never throws. */
  abort(): Promise<void>;
}

const lastSweep = new WeakMap<Queryable, number>();

/**
 * Deletes uploads a crash left behind (older than {@link STALE_UPLOAD_MS}, never completed).
 *
 * @returns How many were deleted.
 */
export async function sweepStaleUploads(db: Queryable): Promise<number> {
  lastSweep.set(db, Date.now());
  const rows = await db.query(
    `DELETE FROM files WHERE NOT complete AND created_at < now() - make_interval(secs => $1) RETURNING id`,
    [STALE_UPLOAD_MS / 1000],
  );
  return rows.length;
}

/** A new upload's row: no item yet, not complete, its content key sealed by the master key. */
async function begin(db: Queryable, box: SecretBox, meta: FileMeta) {
  const key = newContentKey(box);
  const [row] = await db.query<{ id: number }>(
    `INSERT INTO files (name, media_type, extension, size, format, complete, content_key, chunks)
     VALUES ($1, $2, $3, 0, ${FORMAT_CHUNKS}, false, $4, 0) RETURNING id`,
    [meta.name, meta.mediaType, meta.extension, key.sealed],
  );
  const id = Number(row!.id);
  return { id, writer: new ChunkWriter(db, key, id) };
}

/** Attaches a stored upload to its item, in the caller's transaction. */
async function attach(tx: Queryable, actor: Actor, itemId: number, fileId: number, writer: ChunkWriter) {
  const items = await tx.query('SELECT 1 FROM items WHERE id = $1 FOR UPDATE', [itemId]);
  if (items.length === 0) throw notFound(`No item with id ${itemId}.`);
  const done = await tx.query(
    'UPDATE files SET item_id = $2, size = $3, chunks = $4, complete = true WHERE id = $1 AND NOT complete RETURNING id',
    [fileId, itemId, writer.size, writer.chunks],
  );
  if (done.length === 0) throw conflict('The upload was removed before it completed; send it again.');
  await auditWrite(tx, actor, 'addFile', `item ${itemId} file ${fileId}`);
  return fileId;
}

/**
 * Starts storing an attachment as its bytes arrive (add/file). Each chunk is written on its own,
 * outside any transaction: an upload holds no connection and no lock between chunks.
 *
 * @param ctx The store.
 * @param meta Its name and type.
 * @returns The upload.
 */
export async function startUpload(ctx: StoreContext, meta: FileMeta): Promise<FileUpload> {
  if (Date.now() - (lastSweep.get(ctx.db) ?? 0) > STALE_UPLOAD_MS) await sweepStaleUploads(ctx.db);
  const { id, writer } = await begin(ctx.db, ctx.box, meta);
  let ended = false;
  return {
    id,
    write: (bytes) => writer.write(bytes),
    async end() {
      await writer.end();
      ended = true;
    },
    async complete(actor, itemId) {
      if (!ended) throw new Error('An upload completes after its end.');
      await checkCanAttach(ctx, actor.principal, itemId);
      return ctx.db.transaction((tx) => attach(tx, actor, itemId, id, writer));
    },
    async abort() {
      // Its chunks go with it (ON DELETE CASCADE). A failure here is swept later.
      await ctx.db.query('DELETE FROM files WHERE id = $1 AND NOT complete', [id]).catch(() => {});
    },
  };
}

/**
 * Stores an attachment whose bytes are at hand (the import), in one transaction with its audit
 * record (or in the caller's, when `ctx.db` is one).
 *
 * @returns Its id.
 */
export async function addFile(
  ctx: StoreContext,
  actor: Actor,
  itemId: number,
  file: NewFile,
): Promise<number> {
  await checkCanAttach(ctx, actor.principal, itemId);
  return ctx.db.transaction(async (tx) => {
    const { id, writer } = await begin(tx, ctx.box, file);
    await writer.write(file.bytes);
    await writer.end();
    return attach(tx, actor, itemId, id, writer);
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
  }>('SELECT id, name, media_type, extension, size FROM files WHERE item_id = $1 AND complete ORDER BY id', [
    itemId,
  ]);
  const out: Record<string, FileRecord> = {};
  for (const row of rows) out[String(row.id)] = fileRecord({ ...row, type: row.media_type });
  return out;
}

/** An attachment to send: what it is, and its bytes one chunk at a time. */
export interface StoredFile {
  readonly name: string;
  readonly mediaType: string;
  readonly size: number;
  readonly itemId: number;
  /**
   * Its bytes, chunk by chunk, each authenticated before it is given; the first is already read
   * and checked. Throws an integrity error (`server`) at the first chunk that fails its check, is
   * missing, or when the sizes disagree: never a wrong byte.
   */
  readonly chunks: AsyncIterable<Buffer>;
}

async function* chunksOf(
  db: Queryable,
  key: ContentKey,
  fileId: number,
  count: number,
  size: number,
  first: Buffer,
): AsyncGenerator<Buffer> {
  let sent = first.length;
  yield first;
  for (let index = 1; index < count; index++) {
    const chunk = await readChunk(db, key, fileId, index, count);
    sent += chunk.length;
    if (sent > size) throw integrityError(fileId);
    yield chunk;
  }
  if (sent !== size) throw integrityError(fileId);
}

async function readChunk(db: Queryable, key: ContentKey, fileId: number, index: number, count: number) {
  // As base64 text: both drivers hand bytea over as hex text, twice the chunk's size; base64 is
  // a third of that less to receive, hold as a string and decode (Buffer skips its line breaks).
  const [row] = await db.query<{ content: string }>(
    "SELECT encode(content, 'base64') AS content FROM file_chunks WHERE file_id = $1 AND seq = $2",
    [fileId, index],
  );
  if (!row) {
    // Deleted with its item while it was being sent is no damage.
    const [file] = await db.query('SELECT 1 FROM files WHERE id = $1', [fileId]);
    if (!file) throw notFound(`Attachment ${fileId} was deleted while it was being sent.`);
    throw integrityError(fileId);
  }
  return key.open(fileId, index, index === count - 1, Buffer.from(row.content, 'base64'));
}

/**
 * read/files: one attachment, after the caller's right to read its item is checked, its content
 * key opened and its first chunk read and authenticated (so a tampered start is an error before
 * any byte is sent).
 *
 * @returns The attachment, its bytes still to read.
 */
export async function readFile(ctx: StoreContext, principal: Principal, fileId: number): Promise<StoredFile> {
  const rows = await ctx.db.query<{
    item_id: number;
    name: string;
    media_type: string;
    size: number;
    format: number;
    content_key: Uint8Array | null;
    chunks: number;
  }>(
    'SELECT item_id, name, media_type, size, format, content_key, chunks FROM files WHERE id = $1 AND complete',
    [fileId],
  );
  const row = rows[0];
  if (!row) throw notFound(`No file with id ${fileId}.`);
  try {
    await itemFolder(ctx, principal, Number(row.item_id));
  } catch {
    throw notFound(`No file with id ${fileId}.`);
  }
  // A row in the old format: one an instance of the previous release uploaded after this one
  // started (during an upgrade), or one that failed its check when the vault was opened. It is
  // rewritten in chunks now, or fails its check again.
  if (Number(row.format) === FORMAT_BLOB)
    Object.assign(row, await upgradeLegacyFile(ctx.db, ctx.box, fileId));
  const count = Number(row.chunks);
  if (Number(row.format) !== FORMAT_CHUNKS || row.content_key === null || count < 1) {
    throw integrityError(fileId);
  }
  const key = openContentKey(ctx.box, row.content_key, fileId);
  const size = Number(row.size);
  const first = await readChunk(ctx.db, key, fileId, 0, count);
  return {
    name: row.name,
    mediaType: row.media_type,
    size,
    itemId: Number(row.item_id),
    chunks: chunksOf(ctx.db, key, fileId, count, size, first),
  };
}

/** The plaintext of a blob-format row, read in slices, authenticated at the end. */
async function* blobPlaintext(
  tx: Queryable,
  box: SecretBox,
  fileId: number,
): AsyncGenerator<Buffer, void, undefined> {
  const [row] = await tx.query<{ length: number }>(
    'SELECT octet_length(content) AS length FROM files WHERE id = $1',
    [fileId],
  );
  const length = Number(row?.length ?? 0);
  const slice = async (from: number, count: number) => {
    const [part] = await tx.query<{ part: Uint8Array }>(
      'SELECT substring(content FROM $2 FOR $3) AS part FROM files WHERE id = $1',
      [fileId, from + 1, count],
    );
    return Buffer.from(part!.part);
  };
  if (length < SEALED_HEADER_BYTES) throw integrityError(fileId);
  let parts: OpenInParts;
  try {
    parts = box.openInParts(await slice(0, SEALED_HEADER_BYTES));
  } catch {
    throw integrityError(fileId);
  }
  for (let from = SEALED_HEADER_BYTES; from < length; from += CHUNK_BYTES) {
    yield parts.update(await slice(from, Math.min(CHUNK_BYTES, length - from)));
  }
  try {
    parts.final();
  } catch {
    throw integrityError(fileId);
  }
}

/**
 * Rewrites a blob-format attachment in chunks under a new content key sealed by `to`, in the
 * caller's transaction. The blob is read in slices and its tag checked at the end, before the
 * caller commits: a blob that fails it throws, and the transaction keeps the row as it was.
 */
async function rewriteBlob(tx: Queryable, from: SecretBox, to: SecretBox, fileId: number): Promise<void> {
  const key = newContentKey(to);
  const writer = new ChunkWriter(tx, key, fileId);
  for await (const plain of blobPlaintext(tx, from, fileId)) await writer.write(plain);
  await writer.end();
  await tx.query(
    `UPDATE files SET format = ${FORMAT_CHUNKS}, content = NULL, content_key = $2, chunks = $3, size = $4 WHERE id = $1`,
    [fileId, key.sealed, writer.chunks, writer.size],
  );
}

/**
 * Rewrites one blob-format attachment in chunks, in a transaction of its own (unless another
 * instance did it meanwhile).
 *
 * @returns The row's format, content key and chunk count after it.
 * @throws {IntegrityError} When the blob fails its check (the row is left as it was).
 */
async function upgradeLegacyFile(
  db: Database,
  box: SecretBox,
  fileId: number,
): Promise<{ format: number; content_key: Uint8Array | null; chunks: number; size: number }> {
  return db.transaction(async (tx) => {
    const [row] = await tx.query<{ format: number }>('SELECT format FROM files WHERE id = $1 FOR UPDATE', [
      fileId,
    ]);
    if (row && Number(row.format) === FORMAT_BLOB) await rewriteBlob(tx, box, box, fileId);
    const [after] = await tx.query<{
      format: number;
      content_key: Uint8Array | null;
      chunks: number;
      size: number;
    }>('SELECT format, content_key, chunks, size FROM files WHERE id = $1', [fileId]);
    if (!after) throw notFound(`No file with id ${fileId}.`);
    return after;
  });
}

/** What {@link upgradeLegacyFiles} did. */
export interface UpgradeResult {
  /** Attachments rewritten in chunks. */
  upgraded: number;
  /** Ids of those that failed their check and were left as they were. */
  failed: number[];
}

/**
 * Rewrites attachments stored before migration 6 (one blob each) in chunks, each in a transaction
 * of its own, one slice in memory at a time. Instances opening one PostgreSQL database together
 * share the work (`SKIP LOCKED`). One that fails its integrity check is left as it was: its
 * download answers the integrity error.
 *
 * @returns What was done.
 */
export async function upgradeLegacyFiles(db: Database, box: SecretBox): Promise<UpgradeResult> {
  const result: UpgradeResult = { upgraded: 0, failed: [] };
  let after = 0;
  for (;;) {
    let id: number | undefined;
    try {
      id = await db.transaction(async (tx) => {
        const [row] = await tx.query<{ id: number }>(
          `SELECT id FROM files WHERE format = ${FORMAT_BLOB} AND id > $1 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`,
          [after],
        );
        if (!row) return undefined;
        const fileId = Number(row.id);
        after = fileId;
        await rewriteBlob(tx, box, box, fileId);
        return fileId;
      });
    } catch (error) {
      if (!(error instanceof IntegrityError)) throw error;
      result.failed.push(error.fileId);
      continue;
    }
    if (id === undefined) return result;
    result.upgraded++;
  }
}

/**
 * Re-encrypts every attachment under a new master key, in the caller's transaction (the key
 * rotation): each file gets a new content key sealed by `to`, and its chunks are rewritten one at a
 * time under it. Unfinished uploads are deleted. A chunk or blob that fails its check throws.
 *
 * @returns How many attachments were re-encrypted.
 */
export async function reencryptFiles(tx: Queryable, from: SecretBox, to: SecretBox): Promise<number> {
  await tx.query('DELETE FROM files WHERE NOT complete');
  const rows = await tx.query<{ id: number; format: number; content_key: Uint8Array | null; chunks: number }>(
    'SELECT id, format, content_key, chunks FROM files ORDER BY id FOR UPDATE',
  );
  for (const row of rows) {
    const fileId = Number(row.id);
    if (Number(row.format) === FORMAT_BLOB || row.content_key === null) {
      await rewriteBlob(tx, from, to, fileId);
      continue;
    }
    const count = Number(row.chunks);
    const old = openContentKey(from, row.content_key, fileId);
    const key = newContentKey(to);
    for (let index = 0; index < count; index++) {
      const plain = await readChunk(tx, old, fileId, index, count);
      const [body, tag] = key.seal(fileId, index, index === count - 1, plain);
      await tx.query(
        'UPDATE file_chunks SET content = $3::bytea || $4::bytea WHERE file_id = $1 AND seq = $2',
        [fileId, index, body, tag],
      );
    }
    await tx.query('UPDATE files SET content_key = $2 WHERE id = $1', [fileId, key.sealed]);
  }
  return rows.length;
}
