// The attachment part of `pnpm bench`: the server's RSS while 8 clients upload a 24 MiB attachment
// each at the same time, then while 8 download one each, and once idle again afterwards (issue
// 22.2.2's goal: < 5 MiB of RSS per concurrent 24 MiB transfer, idle RSS back within 10%).
// The clients run in this process and stream their bodies (nothing of them counts in the server's
// RSS); every download is checked byte for byte against what was sent (a digest of the stream).

import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { cpuUs, rssMiB } from './vault-process.ts';

/** Concurrent transfers per phase. */
export const TRANSFERS = 8;
/** The size of each attachment. */
export const FILE_BYTES = 24 * 1024 * 1024;
/** The goal per concurrent transfer, in MiB of server RSS. */
export const GOAL_MIB_PER_TRANSFER = 5;
/** The goal for idle RSS afterwards: within this fraction of idle RSS before. */
export const GOAL_IDLE_BACK = 0.1;
/** How long the server is left alone before "before" and "after" are read. */
const SETTLE_MS = 5_000;
/** How often RSS is sampled during a phase. */
const SAMPLE_MS = 10;
const PIECE = 64 * 1024;

/** One phase's figures. */
export interface PhaseFigures {
  beforeMiB: number;
  peakMiB: number;
  afterMiB: number;
  /** (peak - before) / transfers. */
  perTransferMiB: number;
  /** perTransferMiB / the goal: below 1 meets it. */
  ratioToGoal: number;
  seconds: number;
  /** The server's CPU time (user + system) during the phase. */
  serverCpuSeconds: number;
  failures: string[];
}

/** The figures of both phases on one store. */
export interface AttachmentFigures {
  uploads: PhaseFigures;
  downloads: PhaseFigures;
  /** Idle RSS after both phases against idle RSS before them: (after - before) / before. */
  idleGrowth: number;
}

/** The bytes of attachment `n`: a cheap deterministic stream, different per attachment. */
function piece(n: number, index: number): Buffer {
  const out = Buffer.allocUnsafe(PIECE);
  let x = (n + 1) * 2_654_435_761 + index * 40_503;
  for (let i = 0; i < PIECE; i += 4) {
    x = (x * 1_103_515_245 + 12_345) >>> 0;
    out.writeUInt32LE(x, i);
  }
  return out;
}

function digestOf(n: number): string {
  const hash = createHash('sha256');
  for (let index = 0; index < FILE_BYTES / PIECE; index++) hash.update(piece(n, index));
  return hash.digest('hex');
}

/** Uploads attachment `n` with add/file, streaming the multipart body; resolves with the new id. */
function upload(url: string, key: string, itemId: number, n: number, bytes = FILE_BYTES): Promise<number> {
  const boundary = `vaultline-bench-${n}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="item_id"\r\n\r\n${itemId}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench-${n}.bin"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const target = new URL(`${url}/api/index.php/add/file`);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(head.length + bytes + tail.length),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) return reject(new Error(`add/file ${res.statusCode}: ${text}`));
          resolve(Number((JSON.parse(text) as { new_file_id: string }).new_file_id));
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.write(head);
    let index = 0;
    const pump = () => {
      while (index < bytes / PIECE) {
        if (!req.write(piece(n, index++))) return void req.once('drain', pump);
      }
      req.end(tail);
    };
    pump();
  });
}

/** Downloads an attachment with read/files; resolves with the digest of what arrived. */
function download(url: string, key: string, fileId: number, bytes = FILE_BYTES): Promise<string> {
  const target = new URL(`${url}/api/index.php/read/files/${fileId}`);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        headers: { authorization: `Bearer ${key}` },
      },
      (res) => {
        const hash = createHash('sha256');
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          hash.update(chunk);
        });
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`read/files ${res.statusCode}`));
          if (size !== bytes) return reject(new Error(`read/files sent ${size} bytes`));
          resolve(hash.digest('hex'));
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

async function phase<T>(
  pid: number,
  beforeMiB: number,
  run: () => Promise<PromiseSettledResult<T>[]>,
): Promise<{ figures: PhaseFigures; results: PromiseSettledResult<T>[] }> {
  let peakMiB = beforeMiB;
  const timer = setInterval(() => {
    peakMiB = Math.max(peakMiB, rssMiB(pid));
  }, SAMPLE_MS);
  const started = performance.now();
  const cpuBefore = cpuUs(pid);
  const results = await run();
  const seconds = (performance.now() - started) / 1000;
  const serverCpuSeconds = Math.round((cpuUs(pid) - cpuBefore) / 10_000) / 100;
  clearInterval(timer);
  peakMiB = Math.max(peakMiB, rssMiB(pid));
  await settle();
  const afterMiB = rssMiB(pid);
  const perTransferMiB = Math.round(((peakMiB - beforeMiB) / TRANSFERS) * 10) / 10;
  return {
    results,
    figures: {
      beforeMiB,
      peakMiB,
      afterMiB,
      perTransferMiB,
      ratioToGoal: Math.round((perTransferMiB / GOAL_MIB_PER_TRANSFER) * 100) / 100,
      seconds: Math.round(seconds * 100) / 100,
      serverCpuSeconds,
      failures: results.flatMap((result) =>
        result.status === 'rejected' ? [String((result.reason as Error).message ?? result.reason)] : [],
      ),
    },
  };
}

/**
 * Measures one running server.
 *
 * @param url The server's base URL.
 * @param pid The server's process id.
 * @param key An admin key.
 * @param itemId An item to attach to.
 * @returns The figures.
 */
export async function measureAttachments(
  url: string,
  pid: number,
  key: string,
  itemId: number,
): Promise<AttachmentFigures> {
  const digests = Array.from({ length: TRANSFERS }, (_, n) => digestOf(n));
  // A small transfer each way first, so that the code paths are loaded and compiled: the figures
  // are a running server's. Small: a large one would already hold what the phases measure.
  const warm = await upload(url, key, itemId, TRANSFERS, PIECE);
  await download(url, key, warm, PIECE);
  await settle();
  const idleBefore = rssMiB(pid);
  const ups = await phase(pid, idleBefore, () =>
    Promise.allSettled(Array.from({ length: TRANSFERS }, (_, n) => upload(url, key, itemId, n))),
  );
  const ids = ups.results.map((result) => (result.status === 'fulfilled' ? result.value : undefined));
  const downs = await phase(pid, ups.figures.afterMiB, () =>
    Promise.allSettled(
      ids.map(async (id, n) => {
        if (id === undefined) throw new Error(`upload ${n} failed`);
        const digest = await download(url, key, id);
        if (digest !== digests[n]) throw new Error(`download ${n} differs from what was uploaded`);
        return digest;
      }),
    ),
  );
  return {
    uploads: ups.figures,
    downloads: downs.figures,
    idleGrowth: Math.round(((downs.figures.afterMiB - idleBefore) / idleBefore) * 1000) / 1000,
  };
}
