/**
 * How the replay fake sends a reply, faults included: delays, stalls, streamed filler, dropped
 * connections.
 *
 * @module
 */

import type { ServerResponse } from 'node:http';
import type { Reply } from './types.ts';

/** Streams `bytes` bytes of filler, waiting for the socket to drain. */
async function streamFiller(res: ServerResponse, bytes: number): Promise<void> {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let left = bytes;
  while (left > 0 && !res.destroyed) {
    const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
    left -= piece.length;
    if (!res.write(piece)) {
      // Wait for drain or close, and take both listeners off again (they would pile up).
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done).off('close', done);
          resolve();
        };
        res.once('drain', done).once('close', done);
      });
    }
  }
  res.end();
}

/**
 * Sends a reply.
 *
 * @param res The response.
 * @param reply What to send, and how.
 */
export async function send(res: ServerResponse, reply: Reply): Promise<void> {
  if (reply.destroy) {
    res.socket?.destroy();
    return;
  }
  if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
  if (res.destroyed) return;
  res.statusCode = reply.status ?? 200;
  res.setHeader('content-type', 'application/json');
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  if (reply.streamBytes !== undefined) return streamFiller(res, reply.streamBytes);
  const body = reply.body ?? '';
  if (reply.stallAfterBytes !== undefined) {
    res.flushHeaders();
    res.write(Buffer.from(body).subarray(0, reply.stallAfterBytes));
    return;
  }
  res.end(body);
}
