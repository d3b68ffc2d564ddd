// The limiters against real databases: embedded PGlite and a throwaway PostgreSQL cluster.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exactLimiter, type Limiter, postgresCounter, storageKey, writeBehindLimiter } from '../src/index.ts';
import { type Backend, type Connection, pgliteBackend, postgresBackend, TABLE } from './support/backends.ts';

const FLUSH_MS = 50;

function counter(connection: Connection, points: number, keyPrefix = 'requests', durationSeconds = 60) {
  return postgresCounter({ db: connection, tableName: TABLE, keyPrefix, points, durationSeconds });
}

async function writeBehind(connection: Connection, points: number, onError?: (error: unknown) => void) {
  return writeBehindLimiter({
    shared: counter(connection, points),
    flushIntervalMs: FLUSH_MS,
    onError,
  });
}

async function hits(limiter: Limiter, key: string, count: number) {
  return Promise.all(Array.from({ length: count }, () => limiter.hit(key)));
}

const allowedOf = (decisions: { allowed: boolean }[]) => decisions.filter((d) => d.allowed).length;

/** The count the store holds for a key. */
async function stored(connection: Connection, key: string, keyPrefix = 'requests'): Promise<number> {
  const rows = await connection.query<{ points: number }>(`SELECT points FROM ${TABLE} WHERE key = $1`, [
    `${keyPrefix}:${storageKey(key)}`,
  ]);
  return rows[0]?.points ?? 0;
}

const backends: [string, () => Promise<Backend>][] = [
  ['PGlite', async () => pgliteBackend()],
  ['PostgreSQL', () => postgresBackend()],
];

describe.each(backends)('on %s', (_name, start) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await start();
  });
  afterAll(async () => {
    await backend?.stop();
  });

  it('enforces the limit within one process, refused hits not counted', async () => {
    const connection = await (await backend.fresh()).connect();
    try {
      const limiter = await writeBehind(connection, 5);
      const first = await hits(limiter, 'client-a', 8);
      expect(allowedOf(first)).toBe(5);
      for (const decision of first.filter((d) => !d.allowed)) {
        expect(decision.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        expect(decision.retryAfterSeconds).toBeLessThanOrEqual(60);
      }
      // Another key has its own allowance.
      expect(allowedOf(await hits(limiter, 'client-b', 2))).toBe(2);
      await limiter.flush();
      expect(await stored(connection, 'client-a')).toBe(5);
      expect(await stored(connection, 'client-b')).toBe(2);
      expect((await limiter.hit('client-a')).allowed).toBe(false);
      await limiter.close();
    } finally {
      await connection.close();
    }
  });

  it('writes a burst of hits as one batch, a flush interval later, with no help from the caller', async () => {
    const connection = await (await backend.fresh()).connect();
    try {
      const limiter = await writeBehind(connection, 100);
      expect(allowedOf(await hits(limiter, 'burst', 30))).toBe(30);
      const started = Date.now();
      while ((await stored(connection, 'burst')) < 30 && Date.now() - started < 10_000)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await stored(connection, 'burst')).toBe(30);
      await limiter.close();
    } finally {
      await connection.close();
    }
  });

  it('shares the count between two instances over one database after a flush', async () => {
    const database = await backend.fresh();
    // PGlite has one owner: both "instances" share its connection; PostgreSQL gets two pools.
    const first = await database.connect();
    const second = backend.name === 'postgres' ? await database.connect() : first;
    try {
      const one = await writeBehind(first, 5);
      const two = await writeBehind(second, 5);
      expect(allowedOf(await hits(one, 'shared', 3))).toBe(3);
      await one.flush();
      // The second instance has never seen the key: its first hit reads the shared count (3).
      expect(allowedOf(await hits(two, 'shared', 4))).toBe(2);
      await two.flush();
      expect(await stored(first, 'shared')).toBe(5);
      // The first instance hears the shared count with its next batch's answer.
      await one.hit('shared');
      await one.flush();
      expect((await one.hit('shared')).allowed).toBe(false);
      expect((await two.hit('shared')).allowed).toBe(false);
      await Promise.all([one.close(), two.close()]);
    } finally {
      if (second !== first) await second.close();
      await first.close();
    }
  });

  it('keeps the counts across a restart: a new limiter over the same database', async () => {
    const database = await backend.fresh();
    let connection = await database.connect();
    const before = await writeBehind(connection, 5);
    expect(allowedOf(await hits(before, 'restarted', 4))).toBe(4);
    const exactBefore = exactLimiter(counter(connection, 2, 'reveals'));
    expect(allowedOf(await hits(exactBefore, 'restarted', 2))).toBe(2);
    await before.close();
    await connection.close();

    connection = await database.connect();
    try {
      const after = await writeBehind(connection, 5);
      expect(allowedOf(await hits(after, 'restarted', 3))).toBe(1);
      const exactAfter = exactLimiter(counter(connection, 2, 'reveals'));
      const refusal = await exactAfter.hit('restarted');
      expect(refusal.allowed).toBe(false);
      expect(refusal.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      await after.close();
    } finally {
      await connection.close();
    }
  });

  it('keeps answering when the store is unreachable, and still limits in memory', async () => {
    const database = await backend.fresh();
    const connection = await database.connect();
    const errors: unknown[] = [];
    const limiter = await writeBehind(connection, 4, (error) => errors.push(error));
    expect(allowedOf(await hits(limiter, 'outage', 2))).toBe(2);
    await limiter.flush();
    // The test cluster runs without synchronous commits and its outage is a crash: make what was
    // written durable first, as a real server's commits are.
    if (backend.name === 'postgres') await connection.query('CHECKPOINT');
    const { restore } = await backend.outage(connection);
    try {
      // Known key: decided in memory; the batch fails and is kept.
      expect(allowedOf(await hits(limiter, 'outage', 4))).toBe(2);
      await limiter.flush();
      expect(errors.length).toBeGreaterThan(0);
      // Unknown key: its count cannot be read; it is decided without it.
      expect(allowedOf(await hits(limiter, 'new-during-outage', 5))).toBe(4);
      await limiter.flush();
      if (restore) {
        await restore();
        // The kept counts reach the store once it is back.
        let written = 0;
        const started = Date.now();
        while (Date.now() - started < 15_000) {
          await limiter.flush();
          written = await stored(connection, 'outage').catch(() => 0);
          if (written === 4) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(written).toBe(4);
        expect(await stored(connection, 'new-during-outage')).toBe(4);
      }
    } finally {
      await limiter.close();
      if (restore) await connection.close();
    }
  });

  it('counts hostile, unicode and oversized keys apart, each fitting the store', async () => {
    const connection = await (await backend.fresh()).connect();
    try {
      const limiter = await writeBehind(connection, 2);
      const exact = exactLimiter(counter(connection, 2, 'exact'));
      const keys = [
        '',
        'x'.repeat(10_000),
        'x'.repeat(10_001),
        "'; DROP TABLE rate_limits; --",
        'nul\u0000byte',
        '\ud800',
        '\ud801',
        'Łódź 🔑 ключ',
        '#already-hashed-looking',
        'with:colons:and%percent',
        '\u202Ebidi',
        '203.0.113.7',
        '2001:db8::1',
      ];
      for (const key of keys) {
        expect(allowedOf(await hits(limiter, key, 3)), JSON.stringify(key.slice(0, 20))).toBe(2);
        expect(allowedOf(await hits(exact, key, 3)), JSON.stringify(key.slice(0, 20))).toBe(2);
      }
      await limiter.flush();
      for (const key of keys) expect(await stored(connection, key)).toBe(2);
      const rows = await connection.query<{ longest: number }>(
        `SELECT max(length(key)) AS longest FROM ${TABLE}`,
      );
      expect(rows[0]?.longest).toBeLessThanOrEqual(255);
      await limiter.close();
    } finally {
      await connection.close();
    }
  });
});
