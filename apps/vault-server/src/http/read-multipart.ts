import { Readable } from 'node:stream';
import { Busboy, type BusboyInstance } from '@fastify/busboy';
import { invalid, VaultServerError } from '../errors.ts';
import { extensionOf, mediaTypeOf, safeFileName } from './file-names.ts';

/** The add/file form, read. */
export interface UploadedFile {
  itemId: string | undefined;
  name: string;
  mediaType: string;
  extension: string;
  bytes: Buffer;
}

/** The parts add/file reads: each may appear once. */
const READ_PARTS = new Set(['item_id', 'file']);

function repeated(name: string): VaultServerError {
  return invalid(`The form has the field "${name}" more than once; send it once.`);
}

function tooLarge(maxBytes: number): VaultServerError {
  return new VaultServerError('too_large', `The file is larger than the limit of ${maxBytes} bytes.`);
}

/**
 * Streams a multipart/form-data body through @fastify/busboy: the `item_id` field and one `file` part,
 * stopping with 413 as soon as the file passes `maxBytes`, and with `checkItem`'s error as soon as
 * the file part starts after an `item_id` the caller may not attach to.
 */
export async function readMultipart(
  request: Request,
  maxBytes: number,
  checkItem?: (itemId: string) => Promise<void>,
): Promise<UploadedFile> {
  const contentType = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    throw invalid('Expected a multipart/form-data body with the fields item_id and file.');
  }
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  // The form's other bytes (boundaries, item_id, part headers) stay well under 64 KiB.
  if (declared > maxBytes + 65_536) throw tooLarge(maxBytes);
  if (!request.body) throw invalid('Expected a multipart/form-data body, received none.');
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
  const source = Readable.fromWeb(request.body as import('node:stream/web').ReadableStream);
  return new Promise<UploadedFile>((resolve, reject) => {
    let itemId: string | undefined;
    let file: Omit<UploadedFile, 'itemId'> | undefined;
    let failure: Error | undefined;
    let pending: Promise<void> = Promise.resolve();
    const fail = (error: Error) => {
      if (failure) return;
      failure = error;
      source.unpipe(parser);
      source.destroy();
      reject(error);
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
      if (!once(name)) return;
      if (name === 'item_id') itemId = value;
    });
    parser.on('file', (name, stream, filename, _encoding, mimeType) => {
      if (!once(name) || name !== 'file') {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      // When item_id came first (as clients send it), refuse before reading the file's bytes.
      let gate: Promise<void> = Promise.resolve();
      if (checkItem && itemId !== undefined) {
        stream.pause();
        const seen = itemId;
        // A check that throws synchronously must still become a rejection, never an uncaught error.
        gate = Promise.resolve().then(() => checkItem(seen));
        gate.then(
          () => stream.resume(),
          (error: Error) => fail(error),
        );
      }
      // A body that ends inside the file errors the file stream too; unhandled, it would crash the process.
      stream.on('error', () => fail(invalid('The multipart body is malformed or cut short.')));
      pending = new Promise<void>((done) => {
        stream.on('data', (chunk: Buffer) => {
          size += chunk.length;
          chunks.push(chunk);
        });
        // A refused item wins over the size: the check decides first.
        stream.on('limit', () =>
          gate.then(
            () => fail(tooLarge(maxBytes)),
            () => {},
          ),
        );
        stream.on('end', () => {
          const safeName = safeFileName(filename);
          const extension = extensionOf(safeName);
          file = {
            name: safeName,
            extension,
            mediaType: mediaTypeOf(mimeType, extension),
            bytes: Buffer.concat(chunks, size),
          };
          done();
        });
      });
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
        if (!file) return fail(invalid('Expected a file part named "file".'));
        resolve({ itemId, ...file });
      });
    });
    source.on('error', () => fail(invalid('The upload was interrupted.')));
    source.pipe(parser);
  });
}
