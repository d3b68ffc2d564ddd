/**
 * The admin control channel of a server on PGlite, which one process holds: the running server
 * listens on a Unix socket in its data directory (mode 0600, in a 0700 directory: its owner only),
 * and the `vaultline-server` admin commands send their {@link VaultAdmin} calls through it while it
 * runs. Any method of the administration is served, by name, and nothing else: a method added to
 * `VaultAdmin` works through the channel without code of its own. One call per connection, one
 * JSON line each way; dates travel tagged.
 *
 * @module
 */

import { chmod, rm } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import type { VaultErrorCode } from '@vaultline/protocol';
import type { Logger } from 'pino';
import { ADMIN_SOCKET } from './constants.ts';
import { VaultServerError } from './errors.ts';
import type { Actor } from './store/actor.ts';
import { operatorActor } from './store/actor.ts';
import { StoreError, type StoreErrorKind, type StoreErrorReason } from './store/errors.ts';
import type { VaultAdmin } from './vault.ts';

/** The longest request line read, in bytes: admin calls are small. */
const MAX_REQUEST_BYTES = 1 << 20;

/** A call as it travels. */
interface AdminCall {
  readonly operator: string;
  readonly method: string;
  readonly args: unknown[];
}

/** An answer as it travels. */
type AdminAnswer =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: TravellingError };

/** An error as it travels: the store's, or the server's with its code and status. */
type TravellingError =
  | { readonly kind: StoreErrorKind; readonly message: string; readonly reason: StoreErrorReason | undefined }
  | { readonly code: VaultErrorCode; readonly message: string; readonly status: number | undefined };

/** The socket's path in a data directory. */
export const adminSocketPath = (dataDir: string): string => join(dataDir, ADMIN_SOCKET);

function encode(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key, encoded: unknown) {
    const raw = this[key];
    return raw instanceof Date ? { $date: raw.toISOString() } : encoded;
  });
}

function decode(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && typeof (value as { $date?: unknown }).$date === 'string'
      ? new Date((value as { $date: string }).$date)
      : value,
  );
}

/** Reads one line from a socket. */
function readLine(socket: import('node:net').Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
      const end = received.indexOf('\n');
      if (end >= 0) resolve(received.slice(0, end));
      else if (received.length > MAX_REQUEST_BYTES) reject(new Error('admin call too large'));
    });
    socket.on('end', () => reject(new Error('admin channel closed before a whole line')));
    socket.on('error', reject);
  });
}

/**
 * Serves the administration on the data directory's socket.
 *
 * @param dataDir The PGlite data directory this process holds.
 * @param adminAs The administration, acting as the operator who sent the call.
 * @param logger Where failures of the channel are logged (never an argument: they hold secrets).
 * @returns A function that stops it and removes the socket.
 */
export async function serveAdminChannel(
  dataDir: string,
  adminAs: (actor: Actor) => VaultAdmin,
  logger: Pick<Logger, 'warn'>,
): Promise<() => Promise<void>> {
  const path = adminSocketPath(dataDir);
  // A socket left by a process that died: this process holds the data directory's lock now.
  await rm(path, { force: true });
  const server: Server = createServer((socket) => {
    socket.on('error', () => {});
    void (async () => {
      let answer: AdminAnswer;
      try {
        const call = decode(await readLine(socket)) as AdminCall;
        const admin = adminAs(operatorActor(String(call.operator).slice(0, 100), 'cli'));
        const method = (admin as unknown as Record<string, unknown>)[call.method];
        if (!Object.hasOwn(admin, call.method) || typeof method !== 'function' || !Array.isArray(call.args))
          throw new VaultServerError(
            'invalid_request',
            `No admin command ${JSON.stringify(String(call.method))}.`,
          );
        answer = { ok: true, value: await method.apply(admin, call.args) };
      } catch (error) {
        answer = { ok: false, error: errorOf(error) };
        if (!(error instanceof VaultServerError || error instanceof StoreError))
          logger.warn(
            { name: error instanceof Error ? error.name : typeof error },
            'admin channel call failed',
          );
      }
      socket.end(`${encode(answer)}\n`);
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  await chmod(path, 0o600);
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(path, { force: true });
  };
}

function errorOf(error: unknown): TravellingError {
  if (error instanceof StoreError) return { kind: error.kind, message: error.message, reason: error.reason };
  if (error instanceof VaultServerError)
    return { code: error.code, message: error.message, status: error.status };
  // Unexpected: its words may hold what it was given.
  return {
    code: 'server',
    message: 'The running server failed to carry out the command; see its log.',
    status: 500,
  };
}

function errorFrom(error: TravellingError): Error {
  return 'kind' in error
    ? new StoreError(error.kind, error.message, error.reason)
    : new VaultServerError(error.code, error.message, error.status);
}

/**
 * The administration of the server running on a data directory, through its socket; `undefined`
 * when no server listens there.
 *
 * @param dataDir The data directory.
 * @param operator Who runs the command, as the audit names them.
 * @returns The administration, or `undefined`.
 */
export async function connectAdminChannel(
  dataDir: string,
  operator: string,
): Promise<VaultAdmin | undefined> {
  const path = adminSocketPath(dataDir);
  const send = (method: string, args: unknown[]) =>
    new Promise<unknown>((resolve, reject) => {
      const socket = connect(path, () => socket.write(`${encode({ operator, method, args })}\n`));
      readLine(socket).then((line) => {
        socket.destroy();
        const answer = decode(line) as AdminAnswer;
        if (answer.ok) resolve(answer.value);
        else reject(errorFrom(answer.error));
      }, reject);
    });
  try {
    await new Promise<void>((resolve, reject) => {
      const probe = connect(path, () => {
        probe.destroy();
        resolve();
      });
      probe.on('error', reject);
    });
  } catch {
    return undefined;
  }
  return new Proxy({} as VaultAdmin, {
    // Not a promise: `then` is no method of the administration.
    get: (_target, method) =>
      typeof method === 'string' && method !== 'then'
        ? (...args: unknown[]) => send(method, args)
        : undefined,
  });
}
