/**
 * The exchange over `node:http` and `node:https`, the transport's default on Node. Node's global
 * `fetch` (undici inside Node) costs about as much CPU to load as Node's own start (its `Headers`,
 * `Response` and `fetch` globals load it on first touch), and several times more per request than
 * `node:http`: a CLI that makes one request and exits pays it on every command. This exchange
 * does what `fetch` did for the transport, with Node's HTTP client:
 *
 * - TLS through `https`'s global agent: the system's CA store and `NODE_EXTRA_CA_CERTS`,
 *   `NODE_TLS_REJECT_UNAUTHORIZED`; keep-alive connections (idle sockets do not hold the process);
 *   the proxy of `NODE_USE_ENV_PROXY` where Node supports it, as for `fetch`.
 * - Redirects as `fetch` follows them (at most 20; 303, and 301/302 of a POST, become a body-less
 *   GET; `authorization`, `cookie` and `proxy-authorization` are dropped when the origin changes),
 *   or handed back as they are (`manual`).
 * - Compressed answers (`gzip`, `deflate`, `br`) asked for and decoded, counted decoded.
 * - The signal ends the exchange, headers or body, with its reason.
 *
 * Modules are taken with `process.getBuiltinModule` (Node 22.3), which bundlers do not follow: a
 * browser build of the core never sees `node:http` (the modules are named without their `node:`
 * prefix, so the VS Code extension's web build, which refuses any `node:` name, holds none), and
 * `node:https` (TLS, tens of ms to load) is loaded only for an `https` URL.
 *
 * @see https://nodejs.org/api/process.html#processgetbuiltinmoduleid
 * @module
 */

import type * as Http from 'node:http';
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type * as Zlib from 'node:zlib';
import { ByteCounter, type Exchange, type HeaderLookup, type Reply } from './exchange.ts';

type GetBuiltinModule = (id: string) => unknown;

/** The most redirects followed, as `fetch` follows. */
const MAX_REDIRECTS = 20;

/** Headers that do not follow a redirect to another origin. */
const CROSS_ORIGIN_DROPPED = ['authorization', 'cookie', 'proxy-authorization'];

/**
 * Node's `process.getBuiltinModule`, where the code runs on Node (22.3 or later).
 *
 * @returns The loader, or `undefined` elsewhere (a browser, a web worker).
 */
export function nodeBuiltins(): GetBuiltinModule | undefined {
  const process = (globalThis as { process?: { getBuiltinModule?: GetBuiltinModule } }).process;
  const load = process?.getBuiltinModule;
  return typeof load === 'function' ? load.bind(process) : undefined;
}

/**
 * The exchange over Node's HTTP client. String bodies only: a `FormData` body (a file upload)
 * goes to `fallback`.
 *
 * @param load Node's `process.getBuiltinModule`.
 * @param fallback The exchange for `FormData` bodies.
 * @returns The exchange.
 */
export function nodeExchange(load: GetBuiltinModule, fallback: Exchange): Exchange {
  const client = (url: URL) => load(url.protocol === 'https:' ? 'https' : 'http') as typeof Http;
  return async (request) => {
    if (request.body !== undefined && typeof request.body !== 'string') return fallback(request);
    let url = new URL(request.url);
    let { method, body } = request;
    const headers: Record<string, string> = { ...lowerCased(request.headers) };
    headers['accept-encoding'] ??= 'gzip, deflate, br';
    headers['user-agent'] ??= 'node';
    for (let redirects = 0; ; redirects++) {
      const response = await send(client(url), url, method, headers, body, request.signal);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (request.redirect === 'manual' || !isRedirect(status) || location === undefined)
        return reply(response, method, request.signal, load);
      response.resume();
      if (redirects >= MAX_REDIRECTS) throw new TypeError('redirect count exceeded');
      const next = new URL(location, url);
      if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
        if (method !== 'HEAD') method = 'GET';
        body = undefined;
        delete headers['content-type'];
      }
      if (next.origin !== url.origin) for (const name of CROSS_ORIGIN_DROPPED) delete headers[name];
      url = next;
    }
  };
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/** Sends one request; resolves with the response's head. */
function send(
  http: typeof Http,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const outgoing: OutgoingHttpHeaders = { ...headers };
  if (body !== undefined) outgoing['content-length'] = Buffer.byteLength(body);
  return new Promise((resolve, reject) => {
    let request: ClientRequest;
    try {
      request = http.request(url, { method, headers: outgoing, signal });
    } catch (error) {
      reject(error);
      return;
    }
    request.once('response', resolve);
    request.once('error', reject);
    request.end(body);
  });
}

/** The reply of a response whose head arrived. */
function reply(
  response: IncomingMessage,
  method: string,
  signal: AbortSignal,
  load: GetBuiltinModule,
): Reply {
  const status = response.statusCode ?? 0;
  const headers: HeaderLookup = {
    get(name) {
      const value = response.headers[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
  };
  const empty = method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200);
  return {
    status,
    headers,
    read: (maxBytes) => {
      if (empty) {
        response.resume();
        return Promise.resolve({ bytes: new Uint8Array(0) });
      }
      const declared = Number(response.headers['content-length'] ?? Number.NaN);
      if (declared > maxBytes) {
        response.destroy();
        return Promise.resolve({ tooLarge: declared });
      }
      return readStream(response, decoded(response, load), maxBytes, signal);
    },
    discard: () => {
      response.destroy();
    },
  };
}

/** The body's stream, decoded when the server compressed it. */
function decoded(
  response: IncomingMessage,
  load: GetBuiltinModule,
): NodeJS.ReadableStream & NodeJS.EventEmitter {
  const encoding = (response.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding !== 'gzip' && encoding !== 'x-gzip' && encoding !== 'deflate' && encoding !== 'br')
    return response;
  const zlib = load('zlib') as typeof Zlib;
  // Lenient flushes, as fetch: a body cut short at a block boundary still decodes what came.
  const flush = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  const decoder =
    encoding === 'br'
      ? zlib.createBrotliDecompress({
          flush: zlib.constants.BROTLI_OPERATION_FLUSH,
          finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
        })
      : encoding === 'deflate'
        ? zlib.createInflate(flush)
        : zlib.createGunzip(flush);
  response.once('error', (error) => decoder.destroy(error));
  response.once('aborted', () => decoder.destroy(new Error('aborted')));
  return response.pipe(decoder);
}

/** Reads a stream whole within the limit; the signal ends it with its reason. */
function readStream(
  response: IncomingMessage,
  stream: NodeJS.ReadableStream & NodeJS.EventEmitter,
  maxBytes: number,
  signal: AbortSignal,
): Promise<{ bytes: Uint8Array } | { tooLarge: number }> {
  return new Promise((resolve, reject) => {
    const chunks = new ByteCounter(maxBytes);
    const done = () => {
      signal.removeEventListener('abort', onAbort);
      stream.removeListener('data', onData);
    };
    const onAbort = () => {
      done();
      response.destroy();
      reject(signal.reason);
    };
    const onData = (chunk: Buffer) => {
      // A plain Uint8Array over the chunk's memory, as fetch gives: not a Buffer.
      if (chunks.add(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))) return;
      done();
      resolve({ tooLarge: chunks.total });
      response.destroy();
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    stream.on('data', onData);
    stream.once('end', () => {
      done();
      resolve({ bytes: chunks.bytes() });
    });
    stream.once('error', (error: Error) => {
      done();
      reject(error);
    });
    // A connection closed before the body's end.
    response.once('aborted', () => {
      done();
      reject(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    });
  });
}
