// The sliding-window limiters: the memory one with a clock of the test's own, the PostgreSQL one
// against real PGlite and a throwaway PostgreSQL cluster, on the database's clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Decision,
  type Limiter,
  memorySlidingLimiter,
  postgresSlidingLimiter,
  slidingLimitTableSql,
  storageKey,
} from '../src/index.ts';
import {
  type Backend,
  type Connection,
  pgliteBackend,
  postgresBackend,
  SLIDING_TABLE,
} from './support/backends.ts';

const allowedOf = (decisions: Decision[]) => decisions.filter((d) => d.allowed).length;

async function hits(limiter: Limiter, key: string, count: number) {
  return Promise.all(Array.from({ length: count }, () => limiter.hit(key)));
}

/** At most `points` of `times` (sorted) in any window of `durationMs`. */
function mostInAnyWindow(times: number[], durationMs: number): number {
  let most = 0;
  for (let first = 0, last = 0; last < times.length; last++) {
    while ((times[first] as number) <= (times[last] as number) - durationMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

describe('memorySlidingLimiter', () => {
  it('allows a burst of points at once, then one place each time the oldest hit leaves the window', async () => {
    let now = 1_000_000;
    const limiter = memorySlidingLimiter({ points: 3, durationSeconds: 10, now: () => now });
    expect(limiter.points).toBe(3);
    expect(allowedOf(await hits(limiter, 'k', 3))).toBe(3);
    now += 4_000;
    expect(await limiter.hit('k')).toEqual({ allowed: false, retryAfterSeconds: 6 });
    now += 5_999;
    expect(await limiter.hit('k')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    // The burst leaves the window together: three places again, no more.
    now += 1;
    expect(allowedOf(await hits(limiter, 'k', 4))).toBe(3);
    await limiter.flush();
    await limiter.close();
  });

  it('frees each place a window after its own hit, not at the end of a fixed window', async () => {
    let now = 0;
    const limiter = memorySlidingLimiter({ points: 3, durationSeconds: 10, now: () => now });
    expect(allowedOf(await hits(limiter, 'k', 2))).toBe(2);
    now = 5_000;
    expect((await limiter.hit('k')).allowed).toBe(true);
    now = 10_000;
    expect(allowedOf(await hits(limiter, 'k', 3))).toBe(2);
    expect(await limiter.hit('k')).toEqual({ allowed: false, retryAfterSeconds: 5 });
    now = 15_000;
    expect(allowedOf(await hits(limiter, 'k', 2))).toBe(1);
  });

  it('never counts more than points in any window, at any pace', async () => {
    let now = 0;
    const limiter = memorySlidingLimiter({ points: 5, durationSeconds: 2, now: () => now });
    const allowedAt: number[] = [];
    for (let step = 0; step < 2_000; step++) {
      // An uneven pace: bursts and pauses.
      now += (step * 7919) % 13 === 0 ? 700 : (step * 31) % 90;
      if ((await limiter.hit('k')).allowed) allowedAt.push(now);
    }
    expect(mostInAnyWindow(allowedAt, 2_000)).toBe(5);
    // The whole budget is used: every window that could take a hit got one.
    expect(allowedAt.length).toBeGreaterThan((now / 2_000) * 5 * 0.5);
  });

  it('does not count refused hits: hammering a full key does not push its next place back', async () => {
    let now = 0;
    const limiter = memorySlidingLimiter({ points: 2, durationSeconds: 10, now: () => now });
    expect((await limiter.hit('k')).allowed).toBe(true);
    now = 1_000;
    expect((await limiter.hit('k')).allowed).toBe(true);
    for (now = 1_001; now < 10_000; now += 500) expect((await limiter.hit('k')).allowed).toBe(false);
    now = 10_000;
    expect((await limiter.hit('k')).allowed).toBe(true);
    expect(await limiter.hit('k')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now = 11_000;
    expect((await limiter.hit('k')).allowed).toBe(true);
  });

  it('counts keys apart, hostile ones hashed, and keeps at most maxKeys of them', async () => {
    const limiter = memorySlidingLimiter({ points: 1, durationSeconds: 60, maxKeys: 100 });
    for (const key of ['', 'x'.repeat(10_000), 'nul\u0000byte', '\ud800', '#looks-hashed']) {
      expect((await limiter.hit(key)).allowed).toBe(true);
      expect((await limiter.hit(key)).allowed).toBe(false);
    }
    for (let i = 0; i < 1000; i++) await limiter.hit(`flood-${i}`);
    expect((await limiter.hit('')).allowed).toBe(true);
  });

  it('refuses bad options with a clear error', () => {
    expect(() => memorySlidingLimiter({ points: 0, durationSeconds: 1 })).toThrow(/points must be/);
    expect(() => memorySlidingLimiter({ points: 1, durationSeconds: 1.5 })).toThrow(/durationSeconds/);
    expect(() => memorySlidingLimiter({ points: 1, durationSeconds: 1, maxKeys: -1 })).toThrow(/maxKeys/);
  });
});

describe('postgresSlidingLimiter options', () => {
  const db = { query: async () => [] };
  it('refuses a table name, key prefix or limit that is not plain', () => {
    const base = { db, tableName: 'limits', keyPrefix: 'p', points: 1, durationSeconds: 1 };
    expect(() => postgresSlidingLimiter({ ...base, tableName: 'x; DROP' })).toThrow(/tableName/);
    expect(() => postgresSlidingLimiter({ ...base, keyPrefix: 'a b' })).toThrow(/keyPrefix/);
    expect(() => postgresSlidingLimiter({ ...base, points: 0 })).toThrow(/points/);
    expect(() => postgresSlidingLimiter({ ...base, durationSeconds: 0 })).toThrow(/durationSeconds/);
    expect(() => slidingLimitTableSql('Bad-Name')).toThrow(/tableName/);
  });

  it('says so when the database returns no row', async () => {
    const limiter = postgresSlidingLimiter({
      db,
      tableName: 'limits',
      keyPrefix: 'p',
      points: 1,
      durationSeconds: 1,
    });
    await expect(limiter.hit('k')).rejects.toThrow(/no row/);
  });
});

/** The row a limiter keeps for a key. */
async function row(connection: Connection, key: string, keyPrefix = 'pace') {
  const rows = await connection.query<{ hits: (string | number)[]; at: string | number }>(
    `SELECT hits, at FROM ${SLIDING_TABLE} WHERE key = $1`,
    [`${keyPrefix}:${storageKey(key)}`],
  );
  const found = rows[0];
  return found && { hits: found.hits.map(Number), at: Number(found.at) };
}

function sliding(connection: Connection, points: number, durationSeconds: number, keyPrefix = 'pace') {
  return postgresSlidingLimiter({
    db: connection,
    tableName: SLIDING_TABLE,
    keyPrefix,
    points,
    durationSeconds,
  });
}

const backends: [string, () => Promise<Backend>][] = [
  ['PGlite', async () => pgliteBackend()],
  ['PostgreSQL', () => postgresBackend()],
];

describe.each(backends)('postgresSlidingLimiter on %s', (_name, start) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await start();
  });
  afterAll(async () => {
    await backend?.stop();
  });

  it('allows a burst of points, then a place only as the oldest hit leaves the window', async () => {
    const connection = await (await backend.fresh()).connect();
    try {
      const limiter = sliding(connection, 3, 1);
      // Every decision in order, with the database's time of each allowed hit.
      const allowedAt: number[] = [];
      const burst = [];
      for (let i = 0; i < 4; i++) {
        const decision = await limiter.hit('k');
        burst.push(decision);
        if (decision.allowed) allowedAt.push((await row(connection, 'k'))?.at as number);
      }
      expect(burst.map((d) => d.allowed)).toEqual([true, true, true, false]);
      expect(burst[3]?.retryAfterSeconds).toBe(1);
      // Hit until three more places came, one at a time as the burst leaves the window.
      while (allowedAt.length < 6) {
        const decision = await limiter.hit('k');
        if (decision.allowed) allowedAt.push((await row(connection, 'k'))?.at as number);
        else {
          expect(decision.retryAfterSeconds).toBe(1);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      expect(mostInAnyWindow(allowedAt, 1_000)).toBe(3);
      // The fourth place came only once the first hit had left the window.
      expect((allowedAt[3] as number) - (allowedAt[0] as number)).toBeGreaterThanOrEqual(1_000);
      // Refused hits were not counted: the key holds only the allowed hits still in the window.
      expect((await row(connection, 'k'))?.hits.length).toBeLessThanOrEqual(3);
    } finally {
      await connection.close();
    }
  });

  it('does not count refused hits and says when the oldest counted hit leaves the window', async () => {
    const connection = await (await backend.fresh()).connect();
    try {
      const limiter = sliding(connection, 2, 60);
      expect(allowedOf(await hits(limiter, 'k', 2))).toBe(2);
      const refusals = await hits(limiter, 'k', 20);
      expect(allowedOf(refusals)).toBe(0);
      for (const refusal of refusals) {
        expect(refusal.retryAfterSeconds).toBeGreaterThanOrEqual(59);
        expect(refusal.retryAfterSeconds).toBeLessThanOrEqual(60);
      }
      expect((await row(connection, 'k'))?.hits).toHaveLength(2);
      // Another key, and the same key under another prefix, count apart.
      expect(allowedOf(await hits(limiter, 'other', 3))).toBe(2);
      expect(allowedOf(await hits(sliding(connection, 2, 60, 'another'), 'k', 3))).toBe(2);
    } finally {
      await connection.close();
    }
  });

  it('shares the limit exactly between two instances over one database, hits at once', async () => {
    const database = await backend.fresh();
    // PGlite has one owner: both "instances" share its connection; PostgreSQL gets two pools.
    const first = await database.connect();
    const second = backend.name === 'postgres' ? await database.connect() : first;
    try {
      const one = sliding(first, 10, 60);
      const two = sliding(second, 10, 60);
      for (const key of ['a', 'b', 'c']) {
        const [fromOne, fromTwo] = await Promise.all([hits(one, key, 25), hits(two, key, 25)]);
        expect(allowedOf(fromOne) + allowedOf(fromTwo)).toBe(10);
        expect((await row(first, key))?.hits).toHaveLength(10);
      }
      // A restart: a new limiter over the same database sees the counted hits.
      expect((await sliding(second, 10, 60).hit('a')).allowed).toBe(false);
    } finally {
      if (second !== first) await second.close();
      await first.close();
    }
  });

  it('counts hostile, unicode and oversized keys apart, each stored short', async () => {
    const connection = await (await backend.fresh()).connect();
    try {
      const limiter = sliding(connection, 2, 60);
      const keys = [
        '',
        'x'.repeat(10_000),
        'x'.repeat(10_001),
        "'; DROP TABLE sliding_limits; --",
        'nul\u0000byte',
        '\ud800',
        'Łódź 🔑 ключ',
        '#already-hashed-looking',
        'with:colons:and%percent',
      ];
      for (const key of keys)
        expect(allowedOf(await hits(limiter, key, 3)), JSON.stringify(key.slice(0, 20))).toBe(2);
      const rows = await connection.query<{ count: string | number; longest: number }>(
        `SELECT count(*) AS count, max(length(key)) AS longest FROM ${SLIDING_TABLE}`,
      );
      expect(Number(rows[0]?.count)).toBe(keys.length);
      expect(rows[0]?.longest).toBeLessThanOrEqual(64 + 1 + 44);
    } finally {
      await connection.close();
    }
  });

  it('runs no DDL: without its table a hit fails, and the table is left absent', async () => {
    const connection = await (await backend.fresh()).connect();
    try {
      const limiter = postgresSlidingLimiter({
        db: connection,
        tableName: 'no_such_table',
        keyPrefix: 'p',
        points: 1,
        durationSeconds: 1,
      });
      await expect(limiter.hit('k')).rejects.toThrow(/no_such_table/);
      const rows = await connection.query(`SELECT to_regclass('no_such_table') AS t`);
      expect(rows[0]).toEqual({ t: null });
    } finally {
      await connection.close();
    }
  });
});
