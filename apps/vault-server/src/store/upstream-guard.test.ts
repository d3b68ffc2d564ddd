import { createServer, type Server } from 'node:http';
import { type Limiter, memoryLimiter, memoryTokenBucket } from '@vaultline/rate-limit';
import { openPglite, type PgliteDatabase } from '@vaultline/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUpstreamCaller } from './upstream-caller.ts';
import { createAccountGuard, createUpstreamBreaker } from './upstream-guard.ts';

describe('an account guard waiting for the pace', () => {
  let upstream: Server;
  let url: string;
  let db: PgliteDatabase;
  const asked: string[] = [];
  /** Answers to `GET /held` wait for this. */
  let held: Promise<void> = Promise.resolve();

  beforeAll(async () => {
    db = await openPglite();
    upstream = createServer((request, response) => {
      asked.push(`${request.method} ${request.url ?? ''}`);
      response.setHeader('content-type', 'application/json');
      const seen = asked.length;
      const answer = () => response.end(JSON.stringify({ path: request.url, seen }));
      if (request.method === 'GET' && request.url === '/held') void held.then(answer);
      else answer();
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
  });
  /** An account's guard in front of the test's upstream; a pace of plenty unless given. */
  const guardOf = (accountId: number, pace: Limiter = memoryTokenBucket({ burst: 100, perMinute: 100 })) =>
    createAccountGuard({ accountId, accountName: 'ci', db, breaker: createUpstreamBreaker(), pace });

  afterAll(async () => {
    await new Promise((resolve) => upstream?.close(resolve));
    await db?.close();
  });

  it("keeps a shared read for a caller who joined it, past the first caller's deadline", async () => {
    // One call per window of 2 s, and this window's call made already.
    const pace = memoryLimiter({ points: 1, durationSeconds: 2 });
    await pace.hit('1');
    const guard = guardOf(1, pace);
    const read = (path: string, deadlineMs: number) =>
      asUpstreamCaller(undefined, deadlineMs, async () => (await guard.fetch(`${url}${path}`)).json());
    // Another read, asked first, takes the next window's call.
    const other = read('/other', 10_000);
    // The shared read's turn is the window after next: past its first caller's deadline (3 s),
    // within that of the caller who joins it.
    const first = read('/shared', 3_000);
    const second = read('/shared', 10_000);
    await expect(other).resolves.toMatchObject({ path: '/other' });
    await expect(first).rejects.toMatchObject({ name: 'TimeoutError' });
    await expect(second).resolves.toMatchObject({ path: '/shared' });
    expect(asked.splice(0).sort()).toEqual(['GET /other', 'GET /shared']);
  }, 30_000);

  it('shares an answer with a caller whose request came before it, never with a later one or past a write', async () => {
    const guard = guardOf(2);
    const read = (startedAt: number) =>
      asUpstreamCaller(undefined, 10_000, async () => (await guard.fetch(`${url}/item`)).json(), startedAt);
    const before = Date.now();
    await expect(read(Date.now())).resolves.toMatchObject({ path: '/item' });
    // Arrived before that answer came: it gets it, TeamPass is not asked again.
    await expect(read(before)).resolves.toMatchObject({ path: '/item' });
    expect(asked.splice(0)).toEqual(['GET /item']);
    // Arrived after it: asked again.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await expect(read(Date.now())).resolves.toMatchObject({ path: '/item' });
    expect(asked.splice(0)).toEqual(['GET /item']);
    // A write in between: nothing kept is shared past it, whenever the caller arrived.
    await asUpstreamCaller(undefined, 10_000, () => guard.fetch(`${url}/item`, { method: 'POST' }));
    await expect(read(before)).resolves.toMatchObject({ path: '/item' });
    expect(asked.splice(0)).toEqual(['POST /item', 'GET /item']);
  });

  it('never gives a read made before a write to a caller who asks after it', async () => {
    const guard = guardOf(3);
    let release = () => {};
    held = new Promise((resolve) => {
      release = resolve;
    });
    const read = () =>
      asUpstreamCaller(undefined, 10_000, async () => (await guard.fetch(`${url}/held`)).json());
    // A read on its way when the write is sent and answered.
    const early = read();
    await expect.poll(() => asked.includes('GET /held')).toBe(true);
    await asUpstreamCaller(undefined, 10_000, () => guard.fetch(`${url}/held`, { method: 'PUT' }));
    const late = read();
    await expect.poll(() => asked.length).toBe(3);
    release();
    // The later read asked TeamPass itself, after the write.
    expect(await early).toEqual({ path: '/held', seen: 1 });
    expect(await late).toEqual({ path: '/held', seen: 3 });
    expect(asked.splice(0)).toEqual(['GET /held', 'PUT /held', 'GET /held']);
  });
});
