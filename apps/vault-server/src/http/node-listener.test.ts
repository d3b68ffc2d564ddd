import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { answerWriter } from './node-listener.ts';

describe('answerWriter', () => {
  it('writes the answers of one event-loop turn together, after the turn, each to its own response', async () => {
    const answer = answerWriter((error) => {
      throw error;
    });
    const sentAtOnce: boolean[] = [];
    let written = 0;
    const server = createServer((incoming, outgoing) => {
      answer(outgoing, {
        status: 201,
        headers: { 'content-type': 'text/plain', 'x-path': incoming.url ?? '' },
        body: `answer to ${incoming.url}`,
      });
      sentAtOnce.push(outgoing.headersSent);
      outgoing.on('finish', () => {
        written += 1;
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const answers = await Promise.all(
        ['/a', '/b', '/c'].map(async (path) => {
          const response = await fetch(`http://127.0.0.1:${port}${path}`);
          return [response.status, response.headers.get('x-path'), await response.text()];
        }),
      );
      expect(answers).toEqual([
        [201, '/a', 'answer to /a'],
        [201, '/b', 'answer to /b'],
        [201, '/c', 'answer to /c'],
      ]);
      // Nothing was written while the request was handled: the answer waited for the turn's end.
      expect(sentAtOnce).toEqual([false, false, false]);
      expect(written).toBe(3);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('answers 500 in place of an answer node:http refuses to write, and still writes the others', async () => {
    const refused: unknown[] = [];
    const answer = answerWriter((error, outgoing) => {
      refused.push(error);
      outgoing.writeHead(500).end('refused');
    });
    const server = createServer((incoming, outgoing) => {
      const bad = incoming.url === '/bad';
      answer(outgoing, {
        status: 200,
        headers: { 'content-type': bad ? 'text/plain\r\nx-injected: 1' : 'text/plain' },
        body: 'fine',
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const [bad, good] = await Promise.all(
        ['/bad', '/good'].map(async (path) => {
          const response = await fetch(`http://127.0.0.1:${port}${path}`);
          return [response.status, response.headers.get('x-injected'), await response.text()];
        }),
      );
      expect(bad).toEqual([500, null, 'refused']);
      expect(good).toEqual([200, null, 'fine']);
      expect(refused).toHaveLength(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
