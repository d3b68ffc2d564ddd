/**
 * Real receivers for tests: an RFC 5424 syslog receiver over TCP, UDP or TLS (octet-counted
 * frames, parsed strictly, so that a malformed message fails the test), an HTTP collector, and
 * sinks that accept and never answer. Each keeps every byte it received, for leak scans.
 *
 * @module
 */

import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { promisify } from 'node:util';

/**
 * A self-signed certificate for 127.0.0.1, made by openssl now (never committed).
 *
 * @returns The certificate and its key, PEM.
 */
export async function selfSignedCertificate(): Promise<{ cert: string; key: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'vaultline-audit-cert-'));
  try {
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=vaultline audit test',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ]);
    return { cert: await readFile(cert, 'utf8'), key: await readFile(key, 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A syslog message as the receiver parsed it. */
export interface ReceivedSyslog {
  readonly facility: number;
  readonly severity: number;
  readonly timestamp: string;
  readonly hostname: string;
  readonly appName: string;
  readonly procId: string;
  readonly msgId: string;
  /** The structured data: parameters by SD-ID. */
  readonly data: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly message: string;
  /** When it arrived (`performance.now()`). */
  readonly receivedAt: number;
}

/** Something that receives events. */
export interface Receiver<T> {
  /** The HTTP status the collector answers from now on (HTTP collectors only). */
  answer(status: number): void;
  /** The sink URL to give `VAULTLINE_AUDIT_SINKS`. */
  readonly url: string;
  /** What arrived, in order. */
  readonly received: readonly T[];
  /** Every byte that arrived, for scans. */
  bytes(): Buffer;
  /** Resolves with the first arrival (past or future) that matches. */
  waitFor(match: (item: T) => boolean): Promise<T>;
  /** Parse errors: a test expects none. */
  readonly errors: readonly string[];
  close(): Promise<void>;
}

/**
 * Parses one RFC 5424 message (no framing).
 *
 * @param text The message.
 * @returns It, parsed.
 * @throws {Error} When it is not RFC 5424.
 */
export function parseSyslog(text: string): Omit<ReceivedSyslog, 'receivedAt'> {
  const head = /^<(\d{1,3})>1 (\S+) (\S+) (\S+) (\S+) (\S+) /.exec(text);
  if (!head) throw new Error(`not an RFC 5424 header: ${JSON.stringify(text.slice(0, 80))}`);
  const pri = Number(head[1]);
  let rest = text.slice(head[0].length);
  const data: Record<string, Record<string, string>> = {};
  if (rest.startsWith('-')) rest = rest.slice(1);
  else {
    while (rest.startsWith('[')) {
      const id = /^\[([^ =\]"]{1,32})/.exec(rest);
      if (!id) throw new Error(`bad SD-ID: ${JSON.stringify(rest.slice(0, 40))}`);
      rest = rest.slice(id[0].length);
      const params: Record<string, string> = {};
      for (;;) {
        if (rest.startsWith(']')) {
          rest = rest.slice(1);
          break;
        }
        const name = /^ ([^ =\]"]{1,32})="/.exec(rest);
        if (!name) throw new Error(`bad SD-PARAM: ${JSON.stringify(rest.slice(0, 40))}`);
        rest = rest.slice(name[0].length);
        let value = '';
        for (let i = 0; ; i++) {
          const char = rest[i];
          if (char === undefined) throw new Error('unterminated PARAM-VALUE');
          if (char === '\\' && /["\\\]]/.test(rest[i + 1] ?? '')) {
            value += rest[i + 1];
            i++;
          } else if (char === '"') {
            rest = rest.slice(i + 1);
            break;
          } else if (char === ']') throw new Error('unescaped ] in PARAM-VALUE');
          else value += char;
        }
        params[name[1]!] = value;
      }
      data[id[1]!] = params;
    }
  }
  if (rest !== '' && !rest.startsWith(' ')) throw new Error('no space before MSG');
  return {
    facility: pri >> 3,
    severity: pri & 7,
    timestamp: head[2]!,
    hostname: head[3]!,
    appName: head[4]!,
    procId: head[5]!,
    msgId: head[6]!,
    data,
    message: rest.slice(1),
  };
}

function collector<T>() {
  const received: T[] = [];
  const chunks: Buffer[] = [];
  const errors: string[] = [];
  const waiting = new Set<{ match: (item: T) => boolean; resolve: (item: T) => void }>();
  return {
    received,
    chunks,
    errors,
    add(item: T) {
      received.push(item);
      for (const waiter of waiting) {
        if (waiter.match(item)) {
          waiting.delete(waiter);
          waiter.resolve(item);
        }
      }
    },
    waitFor(match: (item: T) => boolean): Promise<T> {
      const found = received.find(match);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve) => waiting.add({ match, resolve }));
    },
  };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function closeServer(server: Server, sockets: Set<Socket>): Promise<void> {
  for (const socket of sockets) socket.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Options of {@link startSyslogReceiver}. */
export type SyslogReceiverOptions =
  | { transport: 'tcp' | 'udp' }
  | { transport: 'tls'; cert: string | Buffer; key: string | Buffer };

/**
 * A syslog receiver on 127.0.0.1.
 *
 * @param options The transport (and for TLS, the certificate and key, PEM).
 * @returns The receiver.
 */
export async function startSyslogReceiver(options: SyslogReceiverOptions): Promise<Receiver<ReceivedSyslog>> {
  const sink = collector<ReceivedSyslog>();
  const accept = (text: string) => {
    try {
      sink.add({ ...parseSyslog(text), receivedAt: performance.now() });
    } catch (error) {
      sink.errors.push((error as Error).message);
    }
  };
  const common = (port: number, close: () => Promise<void>): Receiver<ReceivedSyslog> => ({
    answer() {
      throw new Error('a syslog receiver answers nothing');
    },
    url: `syslog+${options.transport}://127.0.0.1:${port}`,
    received: sink.received,
    errors: sink.errors,
    bytes: () => Buffer.concat(sink.chunks),
    waitFor: sink.waitFor,
    close,
  });
  if (options.transport === 'udp') {
    const socket = createSocket('udp4');
    socket.on('message', (message) => {
      sink.chunks.push(message);
      accept(message.toString('utf8'));
    });
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return common(socket.address().port, () => new Promise((resolve) => socket.close(() => resolve())));
  }
  const sockets = new Set<Socket>();
  const onConnection = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      sink.chunks.push(chunk);
      buffer = Buffer.concat([buffer, chunk]);
      // RFC 6587 §3.4.1: MSG-LEN SP SYSLOG-MSG.
      for (;;) {
        const space = buffer.indexOf(0x20);
        if (space === -1) return;
        const length = buffer.subarray(0, space).toString('ascii');
        if (!/^[1-9]\d{0,8}$/.test(length)) {
          sink.errors.push(`bad octet count: ${JSON.stringify(length.slice(0, 20))}`);
          socket.destroy();
          return;
        }
        const end = space + 1 + Number(length);
        if (buffer.length < end) return;
        accept(buffer.subarray(space + 1, end).toString('utf8'));
        buffer = buffer.subarray(end);
      }
    });
  };
  const server =
    options.transport === 'tls'
      ? createTlsServer({ cert: options.cert, key: options.key }, onConnection)
      : createNetServer(onConnection);
  const port = await listen(server);
  return common(port, () => closeServer(server, sockets));
}

/** One POST the collector received. */
export interface CollectedBatch {
  readonly headers: IncomingHttpHeaders;
  readonly events: readonly Record<string, unknown>[];
  readonly receivedAt: number;
}

/**
 * An HTTP collector on 127.0.0.1 that takes JSON arrays of events.
 *
 * @param options `status` answers every POST with it (200 by default).
 * @returns The collector.
 */
export async function startHttpCollector(
  options: { status?: number } = {},
): Promise<Receiver<CollectedBatch>> {
  const sink = collector<CollectedBatch>();
  const sockets = new Set<Socket>();
  let status = options.status ?? 200;
  const server = createHttpServer((request, response) => {
    const body: Buffer[] = [];
    request.on('data', (chunk: Buffer) => body.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(body);
      // The bodies only: the Authorization header carries the sink's token by design.
      sink.chunks.push(raw);
      try {
        const events: unknown = JSON.parse(raw.toString('utf8'));
        if (!Array.isArray(events)) throw new Error('not a JSON array');
        sink.add({ headers: request.headers, events, receivedAt: performance.now() });
      } catch (error) {
        sink.errors.push((error as Error).message);
      }
      response.writeHead(status).end();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const port = await listen(server);
  return {
    answer(next) {
      status = next;
    },
    url: `http://127.0.0.1:${port}/audit`,
    received: sink.received,
    errors: sink.errors,
    bytes: () => Buffer.concat(sink.chunks),
    waitFor: sink.waitFor,
    close: () => closeServer(server, sockets),
  };
}

/** A sink that accepts connections and never reads or answers. */
export interface HangingSink {
  /** An HTTP URL and a TCP syslog URL onto the same hanging port. */
  readonly httpUrl: string;
  readonly syslogUrl: string;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Resolves once `count` connections were accepted. */
  waitForConnections(count: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A hanging sink on 127.0.0.1.
 *
 * @returns The sink.
 */
export async function startHangingSink(): Promise<HangingSink> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const waiting = new Set<{ count: number; resolve: () => void }>();
  const server = createNetServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.pause();
    for (const waiter of waiting) {
      if (connections >= waiter.count) {
        waiting.delete(waiter);
        waiter.resolve();
      }
    }
  });
  const port = await listen(server);
  return {
    httpUrl: `http://127.0.0.1:${port}/audit`,
    syslogUrl: `syslog+tcp://127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    waitForConnections(count) {
      if (connections >= count) return Promise.resolve();
      return new Promise((resolve) => waiting.add({ count, resolve }));
    },
    close: () => closeServer(server, sockets),
  };
}
