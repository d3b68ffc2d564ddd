import { Readable } from 'node:stream';
import { decodeId, generatePassword } from '@vaultline/protocol';
import type { EndpointName, EndpointParams, ItemValues } from '@vaultline/protocol/wire';
import { MAX_IDS_PER_CALL } from '../constants.ts';
import { CHUNK_BYTES } from '../crypto/chunk-cipher.ts';
import { invalid } from '../errors.ts';
import type { Principal } from '../store/access.ts';
import type { Actor } from '../store/actor.ts';
import type { StoredFile, VaultStore } from '../store/vault-store.ts';
import type { AnswerProfile } from './answer-profiles.ts';
import type { ApiRequest } from './api-call.ts';
import { FileBody } from './api-response.ts';
import { readMultipart } from './read-multipart.ts';
import type { Transfer, TransferGate } from './transfer-gate.ts';

/** What the handler of operation `K` gets: its row's decoded path parameters and who calls. */
export interface HandlerInput<K extends EndpointName> {
  /** The path parameters, typed by the row's segments: reading one the row lacks fails tsc. */
  readonly params: EndpointParams<K>;
  readonly principal: Principal;
  /** Who acts, for the store's writes (which audit it in the write's own transaction). */
  readonly actor: Actor;
  /** The request, for a handler that reads its body. */
  readonly request: ApiRequest;
  /** How the key is answered (a delete's status, what find/item matches). */
  readonly profile: AnswerProfile;
  /** The vault's folders, items and attachments: the local store, or the upstream one. */
  readonly store: VaultStore;
  readonly maxFileBytes: number;
  /** The bound on attachment transfers: add/file and read/files take a place for their bytes. */
  readonly transfers: TransferGate;
}

/** What a handler answers: a JSON body (a text, or a {@link FileBody}) and what the audit names as target. */
export interface HandlerResult {
  readonly body: unknown;
  readonly target: string;
}

/** One handler per row of the endpoint table. */
export type Handlers = { readonly [K in EndpointName]: (input: HandlerInput<K>) => Promise<HandlerResult> };

function idList(ids: readonly number[]): readonly number[] {
  if (ids.length > MAX_IDS_PER_CALL)
    throw invalid(`Expected at most ${MAX_IDS_PER_CALL} ids in one call, received ${ids.length}.`);
  return ids;
}

/**
 * Reads an id sent inside a value (an item's folder_id, the multipart item_id) with the core's one
 * id decoder: canonical only, so `1 `, `+1` and `1.0` are refused as they are in the path.
 */
function idValue(text: string, what: string): number {
  try {
    return decodeId(text);
  } catch {
    throw invalid(
      `Expected ${what} to be a positive integer id (digits only), received ${JSON.stringify(text.slice(0, 20))}.`,
    );
  }
}

const itemIdOf = (text: string): number => idValue(text, 'the field item_id');

/** The item values with their folder id checked as canonical before the store reads them. */
function itemValues(values: ItemValues): ItemValues {
  idValue(values.folderId, 'folder_id');
  return values;
}

/** The chunks of a download, counted as they are handed on, with the time the store took for each. */
async function* counted(chunks: AsyncIterable<Buffer>, transfer: Transfer): AsyncGenerator<Buffer> {
  const iterator = chunks[Symbol.asyncIterator]();
  try {
    for (;;) {
      const reading = performance.now();
      const next = await iterator.next();
      if (next.done) {
        transfer.settled();
        return;
      }
      transfer.moved(next.value.length, performance.now() - reading);
      yield next.value;
    }
  } finally {
    await iterator.return?.();
  }
}

/** Waits for the server's own work, counted as such by the transfer. */
async function serverWork<T>(transfer: Transfer, work: Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work;
  } finally {
    transfer.moved(0, performance.now() - started);
  }
}

/** Why a transfer's stream is destroyed when it moved too little for the idle bound. */
const stalled = () => new Error('The attachment transfer moved less than the least rate for too long.');

/** The server side of every operation. */
export const handlers: Handlers = {
  async addItem({ params, actor, store }) {
    const id = await store.addItem(actor, itemValues(params.item));
    return { body: { status: 'item added', new_item_id: String(id) }, target: `item ${id}` };
  },
  async updateItem({ params, actor, store }) {
    await store.updateItem(actor, params.id, itemValues(params.item));
    return { body: { status: 'item updated' }, target: `item ${params.id}` };
  },
  async deleteItems({ params, actor, store, profile }) {
    const ids = idList(params.ids);
    await store.deleteItems(actor, ids);
    return { body: profile.deleted, target: `items ${ids.join(',')}` };
  },
  async addFolder({ params, actor, store }) {
    const id = await store.addFolder(actor, params.folder);
    return { body: { status: 'folder created', new_folder_id: String(id) }, target: `folder ${id}` };
  },
  async updateFolder({ params, actor, store }) {
    await store.updateFolder(actor, params.id, params.folder);
    return { body: { status: 'folder updated' }, target: `folder ${params.id}` };
  },
  async deleteFolders({ params, actor, store, profile }) {
    const ids = idList(params.ids);
    await store.deleteFolders(actor, ids);
    return { body: profile.deleted, target: `folders ${ids.join(',')}` };
  },
  async addFile({ request, principal, actor, store, maxFileBytes, transfers }) {
    // Before a byte of the body is read: a refused upload costs nothing. A client that stops
    // sending loses its place, and its socket: the body fails, the upload is thrown away.
    const transfer = transfers.enter(principal.keyLabel, () => request.body().destroy(stalled()));
    try {
      const form = await readMultipart(request, {
        maxBytes: maxFileBytes,
        // The store's time is the server's: the least rate is asked of the client's only.
        checkItem: async (text) => serverWork(transfer, store.checkCanAttach(principal, itemIdOf(text))),
        openFile: (meta) => serverWork(transfer, store.startUpload(meta)),
        onBytes: (count, sinkMs) => transfer.moved(count, sinkMs),
      });
      transfer.settled();
      try {
        const itemId = itemIdOf(form.itemId ?? '');
        const id = await form.file.complete(actor, itemId);
        return { body: { status: 'success', new_file_id: String(id) }, target: `item ${itemId} file ${id}` };
      } catch (error) {
        await form.file.abort();
        throw error;
      }
    } finally {
      transfer.leave();
    }
  },
  async readFolders({ params, principal, store }) {
    return store.readFolderItems(principal, idList(params.ids));
  },
  async readItems({ params, principal, store }) {
    return store.readItems(principal, idList(params.ids));
  },
  async readUserItems({ params, principal, store }) {
    return store.readUserItems(principal, params.login);
  },
  async readUserFolders({ params, principal, store }) {
    return store.readUserFolders(principal, params.login);
  },
  async listFiles({ params, principal, store }) {
    return {
      body: await store.listFiles(principal, params.itemId),
      target: `item ${params.itemId}`,
    };
  },
  async downloadFile({ params, principal, store, transfers }) {
    let bytes: Readable | undefined;
    // A client that stops reading loses its place: the body fails, which destroys the socket.
    const transfer = transfers.enter(principal.keyLabel, () => bytes?.destroy(stalled()));
    let file: StoredFile;
    try {
      file = await store.readFile(principal, params.id);
    } catch (error) {
      transfer.leave();
      throw error;
    }
    // One chunk waits while the one before is written: backpressure from the socket reads the next.
    bytes = Readable.from(counted(file.chunks, transfer), {
      objectMode: false,
      highWaterMark: CHUNK_BYTES,
    });
    // Sent, failed or abandoned by the client: the place is given back.
    bytes.once('close', () => transfer.leave());
    const ascii = file.name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
    const body = new FileBody(bytes, {
      'content-type': file.mediaType,
      'content-length': String(file.size),
      'content-disposition': `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': 'no-store',
    });
    return { body, target: `file ${params.id}` };
  },
  // Reads nothing of the vault: the core's generator, by TeamPass's parameters (docs/spec.md §4.5).
  async generatePassword({ params }) {
    const password = generatePassword(params.rules.rules);
    const body = params.rules.base64 ? Buffer.from(password, 'utf8').toString('base64') : password;
    return { body: { password: body }, target: '' };
  },
  async readOtp({ params, principal, store }) {
    return { body: await store.readOtp(principal, params.id), target: `item ${params.id}` };
  },
  async findItems({ params, principal, store, profile }) {
    return store.findItems(principal, idList(params.folderIds), params.query, profile.find);
  },
};
