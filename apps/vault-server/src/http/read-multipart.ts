import type { Readable } from 'node:stream';
import { Busboy, type BusboyInstance } from '@fastify/busboy';
import { invalid, VaultServerError } from '../errors.ts';
import { extensionOf, mediaTypeOf, safeFileName } from '../store/file-names.ts';
import type { ApiRequest } from './api-call.ts';

/** What a file part is, from its headers. */
export interface FilePartMeta {
  name: string;
  mediaType: string;
  extension: string;
}

/** Where a file part's bytes go as they arrive. */
export interface FileSink {
  /** Takes the next bytes; the part is read on only once it resolves. */
  write(bytes: Uint8Array): Promise<void>;
  /** The part ended: every byte was written. */
  end(): Promise<void>;
  /** The form failed: throw away what was written. Never throws. */
  abort(): Promise<void>;
}

/** How to read the add/file form. */
export interface MultipartOptions<S extends FileSink> {
  /** The largest file; a larger one is cut off with 413. */
  maxBytes: number;
  /** Checks the item of an `item_id` that came before the file, before the file's bytes are read. */
  checkItem?: ((itemId: string) => Promise<void>) | undefined;
  /** Opens where the file's bytes go, when its part starts (after `checkItem`). */
  openFile(meta: FilePartMeta): Promise<S>;
  /** Told of the file's bytes as the sink takes them, and how long the sink took, in ms. */
  onBytes?: ((count: number, sinkMs: number) => void) | undefined;
}

/** The add/file form, read: the file's bytes are all in its sink. */
export interface UploadedForm<S extends FileSink> {
  itemId: string | undefined;
  /** Whether `checkItem` passed for `itemId` before the file was read. */
  itemChecked: boolean;
  file: S;
}

/** The parts add/file reads: each may appear once. */
const READ_PARTS = new Set(['item_id', 'file']);

function repeated(name: string): VaultServerError {
  return invalid(`The form has the field "${name}" more than once; send it once.`);
}

function tooLarge(maxBytes: number): VaultServerError {
  return new VaultServerError('too_large', `The file is larger than the limit of ${maxBytes} bytes.`);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Streams a multipart/form-data body through @fastify/busboy: the `item_id` field and one `file`
 * part, whose bytes go to the sink `openFile` gives as they arrive, with backpressure (the body is
 * read only as fast as the sink takes it). Stops with 413 as soon as the file passes `maxBytes`,
 * and with `checkItem`'s error as soon as the file part starts after an `item_id` the caller may
 * not attach to. On any failure (a malformed or cut-off body, a repeated field, a sink that fails)
 * the sink is aborted before the promise rejects.
 */
export async function readMultipart<S extends FileSink>(
  request: Pick<ApiRequest, 'header' | 'body'>,
  options: MultipartOptions<S>,
): Promise<UploadedForm<S>> {
  const { maxBytes, checkItem, openFile, onBytes } = options;
  const contentType = request.header('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    throw invalid('Expected a multipart/form-data body with the fields item_id and file.');
  }
  const declared = Number(request.header('content-length') ?? Number.NaN);
  // The form's other bytes (boundaries, item_id, part headers) stay well under 64 KiB.
  if (declared > maxBytes + 65_536) throw tooLarge(maxBytes);
  let parser: BusboyInstance;
  try {
    // Browsers and fetch send file names as raw UTF-8, which @fastify/busboy decodes as UTF-8.
    parser = new Busboy({
      headers: { 'content-type': contentType },
      // Two files: a second `file` part must reach the handler below to be refused as repeated.
      limits: { fileSize: maxBytes, files: 2, fields: 4, fieldSize: 1024, parts: 5, headerPairs: 20 },
    });
  } catch {
    throw invalid('Expected a multipart/form-data body with a boundary.');
  }
  const source = request.body();
  return new Promise<UploadedForm<S>>((resolve, reject) => {
    let itemId: string | undefined;
    let itemChecked = false;
    let sink: S | undefined;
    let fileStream: Readable | undefined;
    let failure: Error | undefined;
    // The file part's work: settles (never rejects) once nothing more is written to the sink.
    let pending: Promise<void> = Promise.resolve();
    const fail = (error: Error) => {
      if (failure) return;
      failure = error;
      // The rest of the body is read and dropped, never kept: destroying node:http's request
      // would close the socket before the client reads the answer (a 413 or 403).
      source.unpipe(parser);
      source.resume();
      fileStream?.destroy();
      // Rejected only once the sink is idle, and emptied: nothing of a failed form stays stored.
      void pending.then(async () => {
        await sink?.abort();
        reject(error);
      });
    };
    // A part the operation reads may come once: were the last (or the first) to win, the form
    // would be read differently by the server and by whatever checked it on the way.
    const seen = new Set<string>();
    const once = (name: string): boolean => {
      if (!READ_PARTS.has(name)) return true;
      if (seen.has(name)) {
        fail(repeated(name));
        return false;
      }
      seen.add(name);
      return true;
    };
    parser.on('field', (name, value) => {
      if (failure || !once(name)) return;
      if (name === 'item_id') itemId = value;
    });
    parser.on('file', (name, stream, filename, _encoding, mimeType) => {
      if (failure || !once(name) || name !== 'file') {
        stream.resume();
        return;
      }
      fileStream = stream;
      // When item_id came first (as clients send it), refuse before reading the file's bytes.
      const seenItem = itemId;
      // A check that throws synchronously must still become a rejection, never an uncaught error.
      const gate: Promise<void> =
        checkItem && seenItem !== undefined
          ? Promise.resolve().then(() => checkItem(seenItem))
          : Promise.resolve();
      gate.catch(() => {});
      // A body that ends inside the file errors the file stream too; unhandled, it would crash the process.
      stream.on('error', () => fail(invalid('The multipart body is malformed or cut short.')));
      // A refused item wins over the size: the check decides first.
      stream.on('limit', () =>
        gate.then(
          () => fail(tooLarge(maxBytes)),
          () => {},
        ),
      );
      const safeName = safeFileName(filename);
      const extension = extensionOf(safeName);
      const meta = { name: safeName, extension, mediaType: mediaTypeOf(mimeType, extension) };
      pending = (async () => {
        try {
          await gate;
          itemChecked = seenItem !== undefined && checkItem !== undefined;
          if (failure) return;
          sink = await openFile(meta);
          for await (const chunk of stream) {
            if (failure) return;
            const writing = performance.now();
            await sink.write(chunk as Buffer);
            onBytes?.((chunk as Buffer).length, performance.now() - writing);
          }
          if (failure) return;
          if (stream.truncated) return fail(tooLarge(maxBytes));
          await sink.end();
        } catch (error) {
          fail(asError(error));
        }
      })();
    });
    parser.on('error', () => fail(invalid('The multipart body is malformed.')));
    // Past a limit busboy skips the parts: a repeated one among them would go unseen.
    const tooMany = () => fail(invalid('The form has more parts than add/file reads (item_id and file).'));
    parser.on('partsLimit', tooMany);
    parser.on('filesLimit', tooMany);
    parser.on('fieldsLimit', tooMany);
    parser.on('finish', () => {
      void pending.then(() => {
        if (failure) return;
        if (!sink) return fail(invalid('Expected a file part named "file".'));
        resolve({ itemId, itemChecked, file: sink });
      });
    });
    source.on('error', () => fail(invalid('The upload was interrupted.')));
    source.pipe(parser);
  });
}
