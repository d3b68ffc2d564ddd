import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { type ClientRequest, type IncomingMessage, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VaultError } from '@vaultline/protocol';
import { createWireClient, type WireClient } from '@vaultline/protocol/wire';
import { type PostgresCluster, startPostgresCluster } from '@vaultline/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateMasterKey } from '../src/cli/rotate-master-key.ts';
import { generateMasterKey } from '../src/crypto/master-key.ts';
import { addFile } from '../src/store/files.ts';
import { startTestVault, type TestVault } from '../src/testing.ts';
import {
  clientOf,
  expectJsonError,
  expectNoSecrets,
  expectVaultError,
  rawRequest,
  STORES,
  startVaultOn,
  TEST_OPERATOR,
} from './support/helpers.ts';
import { writeOldFormatVault } from './support/old-format-vault.ts';

const BOUNDARY = 'xATTACHx';
const MiB = 1024 * 1024;
/** The chunk size of the store (crypto/chunk-cipher.ts): files below span several. */
const CHUNK = 128 * 1024;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** An upload sent by hand: the multipart head, then the file's bytes as the test writes them. */
interface OpenUpload {
  req: ClientRequest;
  /** The answer, once it comes. */
  answer: Promise<{ status: number; headers: IncomingMessage['headers']; body: string }>;
  /** Writes file bytes. */
  send(bytes: Uint8Array): Promise<void>;
  /** Writes the rest of the form and ends the request. */
  finish(): void;
}

function openUpload(url: string, key: string, itemId: number, size: number, name = 'big.bin'): OpenUpload {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="item_id"\r\n\r\n${itemId}\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const target = new URL(url);
  const req = request({
    host: target.hostname,
    port: target.port,
    method: 'POST',
    path: '/api/index.php/add/file',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      'content-length': String(head.length + size + tail.length),
    },
  });
  const answer = new Promise<{ status: number; headers: IncomingMessage['headers']; body: string }>(
    (resolve, reject) => {
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      });
      req.on('error', reject);
    },
  );
  answer.catch(() => {});
  req.write(head);
  return {
    req,
    answer,
    send: (bytes) =>
      new Promise((resolve, reject) => req.write(bytes, (error) => (error ? reject(error) : resolve()))),
    finish: () => req.end(tail),
  };
}

/** A download read by hand: what arrived, and how the body ended. */
async function download(
  url: string,
  key: string,
  fileId: number,
): Promise<{ status: number; length: number; bytes: Buffer; complete: boolean }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: `/api/index.php/read/files/${fileId}`,
        headers: { authorization: `Bearer ${key}` },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        const done = (complete: boolean) =>
          resolve({
            status: res.statusCode ?? 0,
            length: Number(res.headers['content-length']),
            bytes: Buffer.concat(chunks),
            complete,
          });
        res.on('end', () => done(true));
        res.on('aborted', () => done(false));
        res.on('error', () => done(false));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * A download read at a pace: at most `bytesPerS` on average from its start (what arrived beyond
 * waits in the socket), read in small parts so that bytes keep moving.
 */
function pacedDownload(
  url: string,
  key: string,
  fileId: number,
  bytesPerS: number,
): Promise<{ status: number; received: number; complete: boolean }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    // Once the answer's head arrived, a reset of the socket ends the download, short: the request's
    // error (ECONNRESET) may come before the answer's 'aborted', whichever Node emits first.
    let finish: ((complete: boolean) => void) | undefined;
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: `/api/index.php/read/files/${fileId}`,
        headers: { authorization: `Bearer ${key}` },
      },
      (res) => {
        const started = performance.now();
        let received = 0;
        const pace = setInterval(() => {
          const allowed = (bytesPerS * (performance.now() - started)) / 1000 - received;
          while (received < allowed) {
            const chunk: Buffer | null = res.read();
            if (chunk === null) break;
            received += chunk.length;
          }
        }, 20);
        const done = (complete: boolean) => {
          clearInterval(pace);
          resolve({ status: res.statusCode ?? 0, received, complete });
        };
        finish = done;
        res.on('end', () => done(true));
        res.on('aborted', () => done(false));
        res.on('error', () => done(false));
      },
    );
    req.on('error', (error) => (finish ? finish(false) : reject(error)));
    req.end();
  });
}

/** The most a loopback connection's kernel buffers may hold, both ends (Linux; 8 MiB elsewhere). */
async function socketBufferBytes(): Promise<number> {
  const largest = async (name: string) => {
    const text = await readFile(`/proc/sys/net/ipv4/${name}`, 'utf8').catch(() => '');
    return Number(text.trim().split(/\s+/).at(-1)) || 4 * MiB;
  };
  return (await largest('tcp_rmem')) + (await largest('tcp_wmem'));
}

const waitFor = async (check: () => Promise<boolean>, what: string) => {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Timed out waiting for ${what}.`);
};

/** One part of a multipart/form-data body. */
function part(name: string, value: string, filename?: string): string {
  const disposition = `form-data; name="${name}"${filename === undefined ? '' : `; filename="${filename}"`}`;
  return `--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n\r\n${value}\r\n`;
}

describe.each(STORES)('attachment transfers on %s', (store) => {
  let cluster: PostgresCluster | undefined;
  let vault: TestVault;
  let admin: WireClient;
  let itemId: number;
  let otherItemId: number;
  const logLines: string[] = [];

  beforeAll(async () => {
    if (store === 'postgres') cluster = await startPostgresCluster();
    vault = await startVaultOn(store, cluster, { logLines });
    admin = clientOf(vault);
    const folder = await admin.addFolder({ folder: { title: 'Attachments' } });
    itemId = (await admin.addItem({ item: { label: 'a1', password: 'x', folderId: folder.id } })).id;
    otherItemId = (await admin.addItem({ item: { label: 'a2', password: 'x', folderId: folder.id } })).id;
  });

  const extraVaults: TestVault[] = [];
  const dirs: string[] = [];

  afterAll(async () => {
    for (const extra of extraVaults) await extra.close();
    await vault?.close();
    await cluster?.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    expectNoSecrets(logLines, [vault.adminKey, ...extraVaults.map((extra) => extra.adminKey)]);
  });

  /** A vault of its own (its own bound), on this store. */
  const startExtra = async (options: Parameters<typeof startVaultOn>[2]) => {
    const extra = await startVaultOn(store, cluster, { logLines, ...options });
    extraVaults.push(extra);
    const client = clientOf(extra);
    const folder = await client.addFolder({ folder: { title: 'Extra' } });
    const item = (await client.addItem({ item: { label: 'extra', password: 'x', folderId: folder.id } })).id;
    return { extra, client, item };
  };

  const countRows = async (target: TestVault) => {
    const [row] = await target.server.vault.db.query<{ files: number; chunks: number }>(
      'SELECT (SELECT count(*) FROM files) AS files, (SELECT count(*) FROM file_chunks) AS chunks',
    );
    return { files: Number(row!.files), chunks: Number(row!.chunks) };
  };

  describe('streamed transfers', () => {
    it('round-trips a 24 MiB attachment byte for byte, stored in chunks', async () => {
      const bytes = randomBytes(24 * MiB);
      // 24 MiB on a loaded machine may take longer than the client's default 10 s.
      const patient = createWireClient({
        baseUrl: vault.url,
        auth: vault.adminKey,
        timeoutMs: 120_000,
        retry: { retries: 0 },
      });
      const added = await patient.addFile({ itemId, file: bytes, fileName: 'big ✓.bin' });
      const [row] = await vault.server.vault.db.query<{ size: number; chunks: number; format: number }>(
        'SELECT size, chunks, format FROM files WHERE id = $1',
        [added.id],
      );
      expect({ size: Number(row!.size), chunks: Number(row!.chunks), format: Number(row!.format) }).toEqual({
        size: 24 * MiB,
        chunks: (24 * MiB) / CHUNK,
        format: 2,
      });
      const downloaded = await patient.downloadFile({ id: added.id! });
      expect(downloaded.bytes.byteLength).toBe(24 * MiB);
      expect(sha256(downloaded.bytes)).toBe(sha256(bytes));
      expect(downloaded.fileName).toBe('big ✓.bin');
      // The content is encrypted at rest: no chunk holds a run of the file's bytes.
      const [plain] = await vault.server.vault.db.query<{ n: number }>(
        'SELECT count(*) AS n FROM file_chunks WHERE file_id = $1 AND position($2::bytea IN content) > 0',
        [added.id, bytes.subarray(CHUNK + 100, CHUNK + 132)],
      );
      expect(Number(plain!.n)).toBe(0);
    });

    it('round-trips sizes around the chunk boundary, the empty file included', async () => {
      for (const size of [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK]) {
        const bytes = randomBytes(size);
        const added = await admin.addFile({ itemId, file: bytes, fileName: `edge-${size}.bin` });
        const back = await admin.downloadFile({ id: added.id! });
        expect(Buffer.from(back.bytes).equals(bytes), `size ${size}`).toBe(true);
        const listed = (await admin.listFiles({ itemId })).find((file) => file.id === added.id);
        expect(listed?.size, `size ${size}`).toBe(size);
      }
    });

    it('keeps hostile and unicode file names safe, as before', async () => {
      const added = await admin.addFile({
        itemId: otherItemId,
        file: randomBytes(CHUNK + 3),
        fileName: '../..\\\u202egnp.exe\t 😀 <b>名前.png',
      });
      const stored = (await admin.listFiles({ itemId: otherItemId })).find((f) => f.id === added.id)!;
      expect(stored.name).toBe('gnp.exe 😀 b名前.png');
      const raw = await rawRequest(vault.url, `/api/index.php/read/files/${added.id}`, {
        headers: { authorization: `Bearer ${vault.adminKey}` },
      });
      expect(raw.headers['content-disposition']).toBe(
        // Each UTF-16 unit outside printable ASCII becomes `_` in the ASCII name, as before.
        `attachment; filename="gnp.exe __ b__.png"; filename*=UTF-8''${encodeURIComponent('gnp.exe 😀 b名前.png')}`,
      );
      expect(raw.headers['content-type']).toBe('image/png');
    });
  });

  it('streams a download to a browser origin too (through the app, under CORS)', async () => {
    const { extra, client, item } = await startExtra({ corsOrigins: ['https://vscode.dev'] });
    const bytes = randomBytes(3 * CHUNK + 17);
    const added = await client.addFile({ itemId: item, file: bytes, fileName: 'cors.bin' });
    const answer = await fetch(`${extra.url}/api/index.php/read/files/${added.id}`, {
      headers: { authorization: `Bearer ${extra.adminKey}`, origin: 'https://vscode.dev' },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe('https://vscode.dev');
    expect(answer.headers.get('content-length')).toBe(String(bytes.length));
    expect(Buffer.from(await answer.arrayBuffer()).equals(bytes)).toBe(true);
  });

  describe('the bound on transfers at once', () => {
    it('answers 503 with Retry-After at once over the bound, and takes transfers again after', async () => {
      const { extra, client, item } = await startExtra({ maxTransfers: 2, maxTransfersPerKey: 2 });
      const stored = await client.addFile({ itemId: item, file: randomBytes(1000), fileName: 's.bin' });
      const size = 2 * MiB;
      const slow = [
        openUpload(extra.url, extra.adminKey, item, size),
        openUpload(extra.url, extra.adminKey, item, size),
      ];
      for (const upload of slow) await upload.send(randomBytes(64 * 1024));
      await waitFor(
        async () =>
          extra.server.vault.db
            .query('SELECT 1 FROM files WHERE NOT complete')
            .then((rows) => rows.length === 2),
        'two uploads in progress',
      );

      const started = performance.now();
      const refused = await rawRequest(extra.url, '/api/index.php/add/file', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${extra.adminKey}`,
          'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        },
        body: `${part('item_id', String(item))}${part('file', 'x', 'x.txt')}--${BOUNDARY}--\r\n`,
      });
      const error = expectJsonError(refused, 503, 'rate_limited');
      expect(error.err).toMatch(/2 attachments already/);
      expect(refused.headers['retry-after']).toBe('1');
      const refusedDownload = await rawRequest(extra.url, `/api/index.php/read/files/${stored.id}`, {
        headers: { authorization: `Bearer ${extra.adminKey}` },
      });
      expectJsonError(refusedDownload, 503, 'rate_limited');
      expect(refusedDownload.headers['retry-after']).toBe('1');
      // Refused at once, not queued behind the uploads in progress.
      expect(performance.now() - started).toBeLessThan(5_000);
      // The protocol client says what it is.
      await expectVaultError(
        clientOf(extra).addFile({ itemId: item, file: randomBytes(10), fileName: 'y.bin' }),
        'rate_limited',
        503,
      );
      // Other operations are not bounded.
      expect((await client.listFiles({ itemId: item })).length).toBe(1);

      for (const upload of slow) {
        await upload.send(randomBytes(size - 64 * 1024));
        upload.finish();
      }
      for (const upload of slow) expect((await upload.answer).status).toBe(200);
      const after = await client.addFile({ itemId: item, file: randomBytes(10), fileName: 'z.bin' });
      expect((await client.downloadFile({ id: after.id! })).bytes.byteLength).toBe(10);
      expect((await client.listFiles({ itemId: item })).map((file) => file.name)).toEqual([
        's.bin',
        'big.bin',
        'big.bin',
        'z.bin',
      ]);
    });

    it('leaves nothing stored when a client disconnects mid-upload, and stays healthy', async () => {
      const { extra, client, item } = await startExtra({ maxTransfers: 1 });
      const upload = openUpload(extra.url, extra.adminKey, item, 24 * MiB);
      for (let sent = 0; sent < 3 * MiB; sent += 256 * 1024) await upload.send(randomBytes(256 * 1024));
      await waitFor(async () => (await countRows(extra)).chunks >= 4, 'chunks of the upload stored');
      upload.req.destroy();
      await waitFor(async () => {
        const rows = await countRows(extra);
        return rows.files === 0 && rows.chunks === 0;
      }, 'the cut-off upload removed');
      expect(await client.listFiles({ itemId: item })).toEqual([]);
      const health = await rawRequest(extra.url, '/healthz');
      expect(health.status).toBe(200);
      // Its place in the bound (of 1) is free again.
      const bytes = randomBytes(3 * CHUNK + 5);
      const added = await client.addFile({ itemId: item, file: bytes, fileName: 'after.bin' });
      expect(Buffer.from((await client.downloadFile({ id: added.id! })).bytes).equals(bytes)).toBe(true);
    });

    it('gives the place back when a client leaves mid-download', async () => {
      const { extra, client, item } = await startExtra({ maxTransfers: 1 });
      const added = await client.addFile({ itemId: item, file: randomBytes(8 * MiB), fileName: 'd.bin' });
      const target = new URL(extra.url);
      await new Promise<void>((resolve, reject) => {
        const req = request(
          {
            host: target.hostname,
            port: target.port,
            path: `/api/index.php/read/files/${added.id}`,
            headers: { authorization: `Bearer ${extra.adminKey}` },
          },
          (res) => {
            res.once('data', () => {
              req.destroy();
              resolve();
            });
          },
        );
        req.on('error', () => {});
        req.on('close', () => resolve());
        req.end();
        setTimeout(() => reject(new Error('no bytes arrived')), 30_000).unref();
      });
      // With a bound of 1, a full download goes through only once the abandoned one gave its place back.
      await waitFor(async () => {
        const again = await download(extra.url, extra.adminKey, added.id!);
        expect([200, 503]).toContain(again.status);
        return again.status === 200 && again.complete;
      }, 'the download place given back');
    });
  });

  describe('stalled transfers', () => {
    /** Whether one small upload and its download go through (the bound has a free place). */
    const placeFree = async (client: WireClient, item: number): Promise<boolean> => {
      try {
        const added = await client.addFile({ itemId: item, file: randomBytes(10), fileName: 'free.bin' });
        return (await client.downloadFile({ id: added.id! })).bytes.byteLength === 10;
      } catch (error) {
        if (error instanceof VaultError && error.status === 503) return false;
        throw error;
      }
    };

    it('gives back the place of an upload that stops sending, and closes its socket', async () => {
      const { extra, client, item } = await startExtra({ maxTransfers: 1, transferIdleMs: 1_500 });
      const upload = openUpload(extra.url, extra.adminKey, item, 4 * MiB);
      await upload.send(randomBytes(256 * 1024));
      await waitFor(async () => (await countRows(extra)).files === 1, 'the upload started');
      expect(await placeFree(client, item)).toBe(false);
      const closed = new Promise<void>(
        (resolve) => upload.req.socket?.once('close', () => resolve()) ?? resolve(),
      );
      await waitFor(() => placeFree(client, item), 'the stalled upload gave its place back');
      await closed;
      await waitFor(async () => (await countRows(extra)).files === 1, 'the stalled upload thrown away');
      expect((await client.listFiles({ itemId: item })).map((file) => file.name)).toEqual(['free.bin']);
    });

    it('gives back the place of a download that is never read, and closes its socket', async () => {
      // The idle bound leaves the check below time to see the place held on a loaded machine.
      const { extra, item } = await startExtra({ maxTransfers: 1, transferIdleMs: 4_000 });
      // Larger than every buffer on the way can hold (the kernel's largest send and receive
      // buffers, and a few chunks in the server), so that the server cannot hand it all over.
      const size = (await socketBufferBytes()) + 8 * MiB;
      const fileId = await addFile(extra.server.vault.ctx, TEST_OPERATOR, item, {
        name: 'unread.bin',
        mediaType: 'application/octet-stream',
        extension: 'bin',
        bytes: randomBytes(size),
      });
      const target = new URL(extra.url);
      const socket = connect(Number(target.port), target.hostname);
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.pause();
      socket.write(
        `GET /api/index.php/read/files/${fileId} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${extra.adminKey}\r\n\r\n`,
      );
      // A small transfer tells whether the place is held: a whole download of the file would take
      // the place itself, and keep it past the idle bound on a loaded machine.
      await waitFor(async () => !(await placeFree(clientOf(extra), item)), 'the download holding the place');
      await waitFor(() => placeFree(clientOf(extra), item), 'the unread download gave its place back');
      // Read at last: the answer ends short, the server closed the socket.
      let received = 0;
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
      });
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        socket.resume();
      });
      expect(received).toBeGreaterThan(0);
      expect(received).toBeLessThan(size);
    });

    it('gives back the place of a download read below the least rate, and keeps one read above it', async () => {
      // The socket buffers take a few MiB at once, then the server writes again only once the
      // reader freed a good part of them (about 2 MiB): the slow reader
      // frees that well within the idle bound, so only the rate stops it (a quarter of the least rate;
      // the fair reader takes four times it, a margin for a loaded machine).
      const minRate = MiB;
      const idleMs = 8_000;
      const { extra, client, item } = await startExtra({
        maxTransfers: 1,
        transferIdleMs: idleMs,
        transferMinRate: minRate,
      });
      const size = 24 * MiB;
      // Stored through the store: the upload is not what is measured.
      const fileId = await addFile(extra.server.vault.ctx, TEST_OPERATOR, item, {
        name: 'slow.bin',
        mediaType: 'application/octet-stream',
        extension: 'bin',
        bytes: randomBytes(size),
      });
      const slow = await pacedDownload(extra.url, extra.adminKey, fileId, minRate / 4);
      expect(slow.status).toBe(200);
      expect(slow.complete).toBe(false);
      expect(slow.received).toBeLessThan(size);
      await waitFor(() => placeFree(client, item), 'the slow download gave its place back');
      const fair = await pacedDownload(extra.url, extra.adminKey, fileId, minRate * 4);
      expect(fair).toEqual({ status: 200, received: size, complete: true });
    });

    it('answers an upload not sent within the request timeout 408, and gives its place back', async () => {
      const { extra, client, item } = await startExtra({
        maxTransfers: 1,
        requestTimeoutMs: 2_000,
        transferIdleMs: 600_000,
      });
      const upload = openUpload(extra.url, extra.adminKey, item, 4 * MiB);
      await upload.send(randomBytes(64 * 1024));
      await waitFor(async () => (await countRows(extra)).files === 1, 'the upload started');
      const answer = await upload.answer.catch(() => undefined);
      // The client may see the 408, or only the reset of a socket it was still writing to.
      if (answer) {
        expect(answer.status).toBe(408);
        expect(JSON.parse(answer.body)).toEqual({
          err: 'The request was not received in time.',
          code: 'timeout',
        });
      }
      await waitFor(() => placeFree(client, item), 'the timed-out upload gave its place back');
    });

    it('answers a request whose headers never end 408 and closes the socket', async () => {
      const { extra } = await startExtra({ requestTimeoutMs: 1_000 });
      const target = new URL(extra.url);
      const socket = connect(Number(target.port), target.hostname);
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
      const answer = await new Promise<string>((resolve) => {
        let text = '';
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        socket.once('close', () => resolve(text));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
        err: 'The request was not received in time.',
        code: 'timeout',
      });
    });

    it('keeps one key to its share of the bound', async () => {
      const { extra, item } = await startExtra({ maxTransfers: 2 });
      const other = await extra.admin.createKey({ label: 'second transfer key' });
      const upload = openUpload(extra.url, extra.adminKey, item, 2 * MiB);
      await upload.send(randomBytes(64 * 1024));
      await waitFor(async () => (await countRows(extra)).files === 1, 'the upload started');
      const refused = await expectVaultError(
        clientOf(extra).addFile({ itemId: item, file: randomBytes(10), fileName: 'same-key.bin' }),
        'rate_limited',
        503,
      );
      expect(refused.message).toMatch(/This key is moving 1 attachments already/);
      const byOther = createWireClient({ baseUrl: extra.url, auth: other, retry: { retries: 0 } });
      await byOther.addFile({ itemId: item, file: randomBytes(10), fileName: 'other-key.bin' });
      await upload.send(randomBytes(2 * MiB - 64 * 1024));
      upload.finish();
      expect((await upload.answer).status).toBe(200);
    });
  });

  it('cuts a download short, and does not call it damage, when its item is deleted meanwhile', async () => {
    const { extra, item } = await startExtra({});
    const patient = createWireClient({
      baseUrl: extra.url,
      auth: extra.adminKey,
      timeoutMs: 120_000,
      retry: { retries: 0 },
    });
    const size = 16 * MiB;
    const added = await patient.addFile({ itemId: item, file: randomBytes(size), fileName: 'gone.bin' });
    const target = new URL(extra.url);
    const received = await new Promise<{ bytes: number; complete: boolean }>((resolve, reject) => {
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          path: `/api/index.php/read/files/${added.id}`,
          headers: { authorization: `Bearer ${extra.adminKey}` },
        },
        (res) => {
          let bytes = 0;
          res.on('data', (chunk: Buffer) => (bytes += chunk.length));
          res.once('data', () => {
            // Held back by the paused client, the server waits before reading on; meanwhile
            // the item goes, and its attachment with it.
            res.pause();
            patient.deleteItems({ ids: [item] }).then(() => res.resume(), reject);
          });
          res.on('end', () => resolve({ bytes, complete: true }));
          res.on('aborted', () => resolve({ bytes, complete: false }));
          res.on('error', () => resolve({ bytes, complete: false }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(received.complete).toBe(false);
    expect(received.bytes).toBeLessThan(size);
    await waitFor(
      async () =>
        logLines.some((line) => line.includes(`Attachment ${added.id} was deleted while it was being sent`)),
      'the log line',
    );
    const line = logLines.find((entry) => entry.includes(`Attachment ${added.id} was deleted`))!;
    expect(JSON.parse(line)).toMatchObject({ level: 30, msg: 'answer cut short' });
    expect(
      logLines.some((entry) => entry.includes(`Attachment ${added.id} failed its integrity check`)),
    ).toBe(false);
  });

  describe('integrity of stored chunks', () => {
    let fileId: number;
    let bytes: Buffer;
    const flip = (seq: number) =>
      vault.server.vault.db.query(
        'UPDATE file_chunks SET content = set_byte(content, 7, get_byte(content, 7) # 1) WHERE file_id = $1 AND seq = $2',
        [fileId, seq],
      );

    beforeAll(async () => {
      bytes = randomBytes(4 * CHUNK);
      fileId = (await admin.addFile({ itemId, file: bytes, fileName: 'guarded.bin' })).id!;
    });

    it('answers a tampered first chunk with a clear 500, before any byte', async () => {
      await flip(0);
      try {
        const answer = await rawRequest(vault.url, `/api/index.php/read/files/${fileId}`, {
          headers: { authorization: `Bearer ${vault.adminKey}` },
        });
        const error = expectJsonError(answer, 500, 'server');
        expect(error.err).toBe(
          `Attachment ${fileId} failed its integrity check: its stored data was altered or is incomplete.`,
        );
      } finally {
        await flip(0);
      }
      expect(sha256((await admin.downloadFile({ id: fileId })).bytes)).toBe(sha256(bytes));
    });

    it('cuts the answer short at a tampered later chunk: only checked bytes are sent, and it is logged', async () => {
      await flip(2);
      try {
        const answer = await download(vault.url, vault.adminKey, fileId);
        expect(answer.status).toBe(200);
        expect(answer.length).toBe(4 * CHUNK);
        expect(answer.complete).toBe(false);
        expect(answer.bytes.length).toBeLessThanOrEqual(2 * CHUNK);
        expect(answer.bytes.equals(bytes.subarray(0, answer.bytes.length))).toBe(true);
        await expect(admin.downloadFile({ id: fileId })).rejects.toBeInstanceOf(VaultError);
        await waitFor(
          async () =>
            logLines.some(
              (line) =>
                line.includes('answer cut short') &&
                line.includes(`Attachment ${fileId} failed its integrity check`),
            ),
          'the log line',
        );
      } finally {
        await flip(2);
      }
    });

    it('detects chunks swapped, dropped or a chunk count changed', async () => {
      const db = vault.server.vault.db;
      const swap = async () => {
        for (const [from, to] of [
          [1, 1000],
          [2, 1],
          [1000, 2],
        ] as const) {
          await db.query('UPDATE file_chunks SET seq = $3 WHERE file_id = $1 AND seq = $2', [
            fileId,
            from,
            to,
          ]);
        }
      };
      const attempts: [string, () => Promise<unknown>][] = [
        ['chunks 1 and 2 swapped', swap],
        [
          'the last chunk dropped, the count and size lowered to match',
          async () => {
            await db.query('DELETE FROM file_chunks WHERE file_id = $1 AND seq = 3', [fileId]);
            await db.query('UPDATE files SET chunks = 3, size = $2 WHERE id = $1', [fileId, 3 * CHUNK]);
          },
        ],
        [
          'a chunk from another file',
          () =>
            db.query(
              `UPDATE file_chunks SET content = (SELECT content FROM file_chunks WHERE file_id <> $1 AND length(content) = $2 LIMIT 1)
               WHERE file_id = $1 AND seq = 1`,
              [fileId, CHUNK + 16],
            ),
        ],
      ];
      for (const [what, alter] of attempts) {
        const saved = await db.query<{ seq: number; content: Uint8Array }>(
          'SELECT seq, content FROM file_chunks WHERE file_id = $1 ORDER BY seq',
          [fileId],
        );
        await alter();
        try {
          const answer = await download(vault.url, vault.adminKey, fileId);
          expect(answer.complete, what).toBe(false);
          expect(answer.bytes.equals(bytes.subarray(0, answer.bytes.length)), what).toBe(true);
        } finally {
          await db.transaction(async (tx) => {
            await tx.query('DELETE FROM file_chunks WHERE file_id = $1', [fileId]);
            for (const row of saved) {
              await tx.query('INSERT INTO file_chunks (file_id, seq, content) VALUES ($1, $2, $3)', [
                fileId,
                row.seq,
                row.content,
              ]);
            }
            await tx.query('UPDATE files SET chunks = 4, size = $2 WHERE id = $1', [fileId, 4 * CHUNK]);
          });
        }
      }
      const missing = await db.query('DELETE FROM file_chunks WHERE file_id = $1 AND seq = 3 RETURNING seq', [
        fileId,
      ]);
      expect(missing.length).toBe(1);
      const answer = await download(vault.url, vault.adminKey, fileId);
      expect(answer.complete).toBe(false);
      expect(answer.bytes.equals(bytes.subarray(0, answer.bytes.length))).toBe(true);
    });
  });

  describe('rotate-master-key', () => {
    it('re-encrypts every chunk under a new content key: the new key reads them all, byte for byte', async () => {
      const masterKey = generateMasterKey();
      let target: { dataDir: string } | { databaseUrl: string };
      if (store === 'postgres') target = { databaseUrl: await cluster!.createDatabase() };
      else {
        const dataDir = await mkdtemp(join(tmpdir(), 'vaultline-rotate-'));
        dirs.push(dataDir);
        target = { dataDir };
      }
      const first = await startTestVault({ ...target, masterKey, logLines });
      const client = clientOf(first);
      const folder = await client.addFolder({ folder: { title: 'Rotate' } });
      const item = (await client.addItem({ item: { label: 'r', password: 'x', folderId: folder.id } })).id;
      const bytes = randomBytes(3 * CHUNK + 99);
      const added = await client.addFile({ itemId: item, file: bytes, fileName: 'r.bin' });
      const stored = (db: TestVault) =>
        db.server.vault.db.query<{ seq: number; digest: string; key: string }>(
          `SELECT c.seq, md5(c.content) AS digest, md5(f.content_key) AS key
             FROM file_chunks c JOIN files f ON f.id = c.file_id WHERE c.file_id = $1 ORDER BY c.seq`,
          [added.id],
        );
      const before = await stored(first);
      expect(before.length).toBe(4);
      await first.close();

      const newKey = generateMasterKey();
      const result = await rotateMasterKey(TEST_OPERATOR, {
        dataDir: 'dataDir' in target ? target.dataDir : undefined,
        databaseUrl: 'databaseUrl' in target ? target.databaseUrl : undefined,
        masterKey,
        newKey,
        cacheTtlMs: 0,
      });
      expect(result).toMatchObject({ files: 1 });

      const rotated = await startTestVault({ ...target, masterKey: newKey, logLines });
      const after = await stored(rotated);
      expect(after.map((row) => row.seq)).toEqual([0, 1, 2, 3]);
      for (const [index, row] of after.entries()) {
        expect(row.digest, `chunk ${index}`).not.toBe(before[index]!.digest);
        expect(row.key).not.toBe(before[index]!.key);
      }
      try {
        const back = await clientOf(rotated, first.adminKey).downloadFile({ id: added.id! });
        expect(Buffer.from(back.bytes).equals(bytes)).toBe(true);
      } finally {
        await rotated.close();
      }
      // The old master key no longer opens the vault.
      await expect(startTestVault({ ...target, masterKey })).rejects.toThrow(/master key does not match/);
    });
  });

  describe('a vault written before chunked attachments', () => {
    it('keeps every old attachment: migrated, rewritten in chunks, downloaded byte for byte', async () => {
      const masterKey = generateMasterKey();
      let target: { dataDir: string } | { databaseUrl: string };
      if (store === 'postgres') target = { databaseUrl: await cluster!.createDatabase() };
      else {
        const dataDir = await mkdtemp(join(tmpdir(), 'vaultline-old-'));
        dirs.push(dataDir);
        target = { dataDir };
      }
      const files = [
        { name: 'empty.bin', bytes: new Uint8Array(0) },
        { name: 'small.bin', bytes: randomBytes(1000) },
        { name: 'large.bin', bytes: randomBytes(3 * CHUNK + 12_345) },
        { name: 'damaged.bin', bytes: randomBytes(5000), damaged: true },
      ];
      const old = await writeOldFormatVault(target, masterKey, files);
      const lines: string[] = [];
      const upgraded = await startTestVault({ ...target, masterKey, logLines: lines });
      extraVaults.push(upgraded);
      const client = clientOf(upgraded);
      for (const [index, file] of files.entries()) {
        const id = old.fileIds[index]!;
        if (file.damaged) {
          await expectVaultError(client.downloadFile({ id }), 'server', 500);
          continue;
        }
        const back = await client.downloadFile({ id });
        expect(Buffer.from(back.bytes).equals(Buffer.from(file.bytes)), file.name).toBe(true);
      }
      expect((await client.listFiles({ itemId: old.itemId })).map((file) => [file.name, file.size])).toEqual(
        files.map((file) => [file.name, file.bytes.byteLength]),
      );
      const db = upgraded.server.vault.db;
      expect(
        (await db.query<{ format: number }>('SELECT format FROM files ORDER BY id')).map((row) =>
          Number(row.format),
        ),
      ).toEqual([2, 2, 2, 1]);
      expect(
        (await db.query<{ version: number }>('SELECT max(version) AS version FROM schema_migrations'))[0]!
          .version,
      ).toBeGreaterThanOrEqual(6);
      expect(
        lines.some(
          (line) =>
            line.includes('attachments rewritten in the chunked format') && line.includes('"count":3'),
        ),
      ).toBe(true);
      expect(
        lines.some(
          (line) => line.includes('failed their integrity check') && line.includes(String(old.fileIds[3])),
        ),
      ).toBe(true);
    });
  });

  const post = (body: string) =>
    rawRequest(vault.url, '/api/index.php/add/file', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${vault.adminKey}`,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      },
      body,
    });

  describe('add/file form fields', () => {
    // Items of their own: nothing else attaches to them, so "stores nothing" is exact.
    beforeAll(async () => {
      const folder = await admin.addFolder({ folder: { title: 'Form fields' } });
      itemId = (await admin.addItem({ item: { label: 'f1', password: 'x', folderId: folder.id } })).id;
      otherItemId = (await admin.addItem({ item: { label: 'f2', password: 'x', folderId: folder.id } })).id;
    });

    it('refuses a repeated item_id with 400 and stores nothing', async () => {
      const cases = [
        `${part('item_id', String(itemId))}${part('item_id', String(otherItemId))}${part('file', 'x', 'a.txt')}`,
        `${part('item_id', String(otherItemId))}${part('file', 'x', 'a.txt')}${part('item_id', String(itemId))}`,
        `${part('item_id', String(itemId))}${part('item_id', String(itemId))}${part('file', 'x', 'a.txt')}`,
      ];
      for (const body of cases) {
        const answer = await post(`${body}--${BOUNDARY}--\r\n`);
        const error = expectJsonError(answer, 400, 'invalid_request');
        expect(error.err).toMatch(/item_id/);
        expect(error.err).toMatch(/more than once/);
      }
      // Nothing stored: not even an unfinished upload.
      const pending = await vault.server.vault.db.query('SELECT id FROM files WHERE NOT complete');
      expect(pending).toEqual([]);
      expect(await admin.listFiles({ itemId })).toEqual([]);
      expect(await admin.listFiles({ itemId: otherItemId })).toEqual([]);
    });

    it('refuses a repeated file part with 400 and stores nothing', async () => {
      const answer = await post(
        `${part('item_id', String(itemId))}${part('file', 'one', 'a.txt')}${part('file', 'two', 'b.txt')}--${BOUNDARY}--\r\n`,
      );
      const error = expectJsonError(answer, 400, 'invalid_request');
      expect(error.err).toMatch(/"file"|file/);
      expect(error.err).toMatch(/more than once/);
      expect(await admin.listFiles({ itemId })).toEqual([]);
    });

    it('refuses a form with more parts than the limit, where a repeated one could hide', async () => {
      const junk = ['a', 'b', 'c', 'd'].map((name) => part(name, name)).join('');
      const answer = await post(
        `${part('item_id', String(itemId))}${junk}${part('item_id', String(otherItemId))}${part('file', 'x', 'a.txt')}--${BOUNDARY}--\r\n`,
      );
      expect(expectJsonError(answer, 400, 'invalid_request').err).toMatch(/more parts/);
      expect(await admin.listFiles({ itemId })).toEqual([]);
      expect(await admin.listFiles({ itemId: otherItemId })).toEqual([]);
    });

    it('still ignores a field the operation does not read', async () => {
      const folderId = (await admin.getItem(itemId)).folderId;
      const fresh = (await admin.addItem({ item: { label: 'a3', password: 'x', folderId } })).id;
      const answer = await post(
        `${part('item_id', String(fresh))}${part('note', 'a')}${part('note', 'b')}${part('file', 'kept', 'k.txt')}--${BOUNDARY}--\r\n`,
      );
      expect(answer.status).toBe(200);
      const files = await admin.listFiles({ itemId: fresh });
      expect(files.map((file) => file.name)).toEqual(['k.txt']);
    });
  });
});
