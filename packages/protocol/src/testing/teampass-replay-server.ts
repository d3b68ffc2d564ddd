/**
 * A local HTTP server on 127.0.0.1 that answers like TeamPass 2.1.27.36's legacy API, as written
 * down in docs/teampass.md: raw-URI matching, `apikey` first, no percent-decoding,
 * per-value item encoding, ONE base64 blob for folders, arrays vs objects keyed by id,
 * `{"err":"No results"}` with HTTP 200, its error table with the odd statuses, non-JSON bodies,
 * the echoed wrong key, empty passwords for items of personal folders, and read/userfolders
 * leaving out folders whose title PHP calls empty while read/userpw lists their items. Faults (slow, huge, 5xx, dropped connections) are switched on per test, and
 * every request is recorded as the server saw it.
 *
 * The emulation is a table, one handler per operation (`teampass2/handlers.ts`); this file is the
 * server around it: the faults a test set, else the handler of the request's route.
 *
 * @see ../../../../docs/teampass.md
 * @module
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { emulate, isIdentification } from './teampass2/emulate.ts';
import { send } from './teampass2/send.ts';
import { type Emulation, seed } from './teampass2/state.ts';
import type { Fault, ReplayOptions, ReplayServer, SeenRequest } from './teampass2/types.ts';

export { ERROR_TABLE, NON_JSON_BODIES } from './teampass2/answers.ts';
export { parseMultipart } from './teampass2/decoding.ts';
export type {
  Fault,
  ReplayOptions,
  ReplayServer,
  Reply,
  SeenRequest,
  StoredFile,
  StoredFolder,
  StoredItem,
  StoredUser,
} from './teampass2/types.ts';

/** The first fault that matches a request, used up when its `times` are. */
function takeFault(faults: Fault[], request: SeenRequest): Fault | undefined {
  const index = faults.findIndex((fault) =>
    fault.match ? fault.match(request) : !isIdentification(request),
  );
  const fault = faults[index];
  if (fault?.times !== undefined && --fault.times <= 0) faults.splice(index, 1);
  return fault;
}

/**
 * Starts the replay server on 127.0.0.1, port 0, seeded with two folders, three items and two users.
 *
 * @param options The key it accepts.
 * @returns The running server.
 */
export async function startReplayServer(options: ReplayOptions): Promise<ReplayServer> {
  const faults: Fault[] = [];
  const sockets = new Set<Socket>();
  const state: ReplayServer = {
    url: '',
    apiKey: options.apiKey,
    requests: [],
    identifications: [],
    items: new Map(),
    folders: new Map(),
    users: new Map(),
    files: new Map(),
    deleteBody: 'json',
    collectionShape: 'teampass',
    fileEndpoints: true,
    threeByteTables: false,
    mangleFourByte: false,
    fault(fault) {
      faults.push(fault);
    },
    reset() {
      state.requests.length = 0;
      state.identifications.length = 0;
      faults.length = 0;
      state.deleteBody = 'json';
      state.collectionShape = 'teampass';
      state.fileEndpoints = true;
      state.threeByteTables = false;
      state.mangleFourByte = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  seed(state);
  let nextId = 100;
  const emulation: Emulation = { server: state, options, newId: () => String(nextId++) };

  async function answer(request: SeenRequest, res: Parameters<typeof send>[0]): Promise<void> {
    const fault = takeFault(faults, request);
    if (fault) return send(res, typeof fault.reply === 'function' ? fault.reply(request) : fault.reply);
    return send(res, await emulate(emulation, request));
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: SeenRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: performance.now(),
      };
      (isIdentification(request) ? state.identifications : state.requests).push(request);
      answer(request, res).catch((error: unknown) => {
        res.statusCode = 599;
        res.end(String(error));
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  (state as { url: string }).url = `http://127.0.0.1:${port}`;
  return state;
}
