// The token buckets: the memory one with a clock of the test's own, the PostgreSQL one against
// real PGlite and a throwaway PostgreSQL cluster, on the database's clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Decision,
  type Limiter,
  memoryTokenBucket,
  postgresTokenBucket,
  storageKey,
  tokenBucketTableSql,
} from '../src/index.ts';
import {
  type Backend,
  type Connection,
  pgliteBackend,
  postgresBackend,
  TOKEN_TABLE,
} from './support/backends.ts';

const allowedOf = (decisions: Decision[]) => decisions.filter((d) => d.allowed).length;

async function hits(limiter: Limiter, key: string, count: number) {
  return Promise.all(Array.from({ length: count }, () => limiter.hit(key)));
}

/**
 * The most a counter like TeamPass's sees: at each hit, the hits of the previous clock minute
 * weighted by what is left of the current one, plus the current one's, for minutes starting at
 * `offsetMs` past the epoch's.
 */
function mostInTeamPassMinute(times: number[], offsetMs: number): number {
  let most = 0;
  for (const at of times) {
    const start = Math.floor((at - offsetMs) / 60_000) * 60_000 + offsetMs;
    const current = times.filter((t) => t >= start && t <= at).length;
    const previous = times.filter((t) => t >= start - 60_000 && t < start).length;
    most = Math.max(most, previous * ((60_000 - (at - start)) / 60_000) + current);
  }
  return most;
}

describe('memoryTokenBucket', () => {
  it('allows a burst at once, then one hit each time a token comes back', async () => {
    let now = 1_000_000;
    // One token back every 10 s.
    const limiter = memoryTokenBucket({ burst: 3, perMinute: 6, now: () => now });
    expect(limiter.points).toBe(3);
    expect(allowedOf(await hits(limiter, 'k', 3))).toBe(3);
    expect(await limiter.hit('k')).toEqual({ allowed: false, retryAfterSeconds: 10 });
    now += 9_001;
    expect(await limiter.hit('k')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now += 999;
    expect(allowedOf(await hits(limiter, 'k', 2))).toBe(1);
    // Idle long enough, the whole burst again, and no more.
    now += 600_000;
    expect(allowedOf(await hits(limiter, 'k', 5))).toBe(3);
    await limiter.flush();
    await limiter.close();
  });

  it("never lets TeamPass's minute estimate pass burst + perMinute, wherever its minutes start", async () => {
    let now = 0;
    const limiter = memoryTokenBucket({ burst: 50, perMinute: 50, now: () => now });
    const allowedAt: number[] = [];
    for (let step = 0; step < 4_000; step++) {
      // An uneven pace: bursts of calls and pauses of up to 70 s.
      now += step % 97 === 0 ? 70_000 : (step * 7919) % 400;
      if ((await limiter.hit('k')).allowed) allowedAt.push(now);
    }
    for (const offset of [0, 1_000, 17_000, 30_000, 59_999]) {
      expect(mostInTeamPassMinute(allowedAt, offset)).toBeLessThanOrEqual(100);
    }
    // The budget is used: most of the steady rate over the whole time (a pause longer than a
    // full refill gives back no more than the burst).
    expect(allowedAt.length).toBeGreaterThan((now / 60_000) * 50 * 0.8);
  });

  it('does not count refused hits: hammering an empty bucket does not push its next token back', async () => {
    let now = 0;
    const limiter = memoryTokenBucket({ burst: 2, perMinute: 6, now: () => now });
    expect(allowedOf(await hits(limiter, 'k', 2))).toBe(2);
    for (now = 1; now < 10_000; now += 500) expect((await limiter.hit('k')).allowed).toBe(false);
    now = 10_000;
    expect((await limiter.hit('k')).allowed).toBe(true);
    expect(await limiter.hit('k')).toEqual({ allowed: false, retryAfterSeconds: 10 });
  });

  it('counts keys apart, hostile ones hashed, and keeps at most maxKeys of them', async () => {
    const limiter = memoryTokenBucket({ burst: 1, perMinute: 1, maxKeys: 100 });
    for (const key of ['', 'x'.repeat(10_000), 'nul\u0000byte', '\ud800', '#looks-hashed']) {
      expect((await limiter.hit(key)).allowed).toBe(true);
      expect((await limiter.hit(key)).allowed).toBe(false);
    }
    for (let i = 0; i < 1000; i++) await limiter.hit(`flood-${i}`);
    // Pushed out by the flood: a full bucket again.
    expect((await limiter.hit('')).allowed).toBe(true);
  });

  it('refuses bad options with a clear error', () => {
    expect(() => memoryTokenBucket({ burst: 0, perMinute: 1 })).toThrow(/burst must be/);
    expect(() => memoryTokenBucket({ burst: 1, perMinute: 1.5 })).toThrow(/perMinute/);
    expect(() => memoryTokenBucket({ burst: 1, perMinute: 1, maxKeys: -1 })).toThrow(/maxKeys/);
  });
});

describe('postgresTokenBucket options', () => {
  const db = { query: async () => [] };
  it('refuses a table name, key prefix or limit that is not plain', () => {
    const base = { db, tableName: 'limits', keyPrefix: 'p', burst: 1, perMinute: 1 };
    expect(() => postgresTokenBucket({ ...base, tableName: 'x; DROP' })).toThrow(/tableName/);
    expect(() => postgresTokenBucket({ ...base, keyPrefix: 'a b' })).toThrow(/keyPrefix/);
    expect(() => postgresTokenBucket({ ...base, burst: 0 })).toThrow(/burst/);
    expect(() => postgresTokenBucket({ ...base, perMinute: 0 })).toThrow(/perMinute/);
    expect(() => tokenBucketTableSql('Bad-Name')).toThrow(/tableName/);
  });

  it('says so when the database returns no row', async () => {
    const limiter = postgresTokenBucket({ db, tableName: 'limits', keyPrefix: 'p', burst: 1, perMinute: 1 });
    await expect(limiter.hit('k')).rejects.toThrow(/no row/);
  });
});

/** The row a limiter keeps for a key. */
async function row(connection: Connection, key: string, keyPrefix = 'pace') {
  const rows = await connection.query<{ tokens: number; at: string | number }>(
    `SELECT tokens, at FROM ${TOKEN_TABLE} WHERE key = $1`,
    [`${keyPrefix}:${storageKey(key)}`],
  );
  const found = rows[0];
  return found && { tokens: Number(found.tokens), at: Number(found.at) };
}

function bucket(connection: Connection, burst: number, perMinute: number, keyPrefix = 'pace') {
  return postgresTokenBucket({ db: connection, tableName: TOKEN_TABLE, keyPrefix, burst, perMinute });
}

const backends: [string, () => Promise<Backend>][] = [
  ['PGlite', async () => pgliteBackend()],
  ['PostgreSQL', () => postgresBackend()],
];

describe.each(backends)('postgresTokenBucket on %s', (_name, start) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await start();
  });
  afterAll(async () => {
    await backend?.stop();
  });

  it('allows a burst, then a hit only once a token came back on the database clock', async () => {
    const connection = await (await backend.fresh()).connect();
    try {
      // One token back a second.
      const limiter = bucket(connection, 3, 60);
      const allowedAt: number[] = [];
      const burst: Decision[] = [];
      for (let i = 0; i < 4; i++) {
        const decision = await limiter.hit('k');
        burst.push(decision);
        if (decision.allowed) allowedAt.push((await row(connection, 'k'))?.at as number);
      }
      expect(burst.map((d) => d.allowed)).toEqual([true, true, true, false]);
      expect(burst[3]?.retryAfterSeconds).toBe(1);
      while (allowedAt.length < 4) {
        const decision = await limiter.hit('k');
        if (decision.allowed) allowedAt.push((await row(connection, 'k'))?.at as number);
        else {
          expect(decision.retryAfterSeconds).toBe(1);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      // The fourth came once the second since the first had refilled a whole token.
      expect((allowedAt[3] as number) - (allowedAt[0] as number)).toBeGreaterThanOrEqual(1_000);
    } finally {
      await connection.close();
    }
  });

  it('does not count refused hits and says when the next token comes', async () => {
    const connection = await (await backend.fresh()).connect();
    try {
      const limiter = bucket(connection, 2, 1);
      expect(allowedOf(await hits(limiter, 'k', 2))).toBe(2);
      const refusals = await hits(limiter, 'k', 20);
      expect(allowedOf(refusals)).toBe(0);
      for (const refusal of refusals) {
        expect(refusal.retryAfterSeconds).toBeGreaterThanOrEqual(55);
        expect(refusal.retryAfterSeconds).toBeLessThanOrEqual(60);
      }
      // Refusals took nothing: the bucket holds what the refill gave since the burst.
      expect((await row(connection, 'k'))?.tokens).toBeLessThan(1);
      expect((await row(connection, 'k'))?.tokens).toBeGreaterThanOrEqual(0);
      // Another key, and the same key under another prefix, count apart.
      expect(allowedOf(await hits(limiter, 'other', 3))).toBe(2);
      expect(allowedOf(await hits(bucket(connection, 2, 1, 'another'), 'k', 3))).toBe(2);
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
      // A token back a minute: none comes back while the test runs.
      const one = bucket(first, 10, 1);
      const two = bucket(second, 10, 1);
      for (const key of ['a', 'b', 'c']) {
        const [fromOne, fromTwo] = await Promise.all([hits(one, key, 25), hits(two, key, 25)]);
        expect(allowedOf(fromOne) + allowedOf(fromTwo)).toBe(10);
      }
      // A restart: a new limiter over the same database sees the tokens taken.
      expect((await bucket(second, 10, 1).hit('a')).allowed).toBe(false);
    } finally {
      if (second !== first) await second.close();
      await first.close();
    }
  });

  it('counts hostile, unicode and oversized keys apart, each stored short', async () => {
    const connection = await (await backend.fresh()).connect();
    try {
      const limiter = bucket(connection, 2, 1);
      const keys = [
        '',
        'x'.repeat(10_000),
        'x'.repeat(10_001),
        "'; DROP TABLE token_buckets; --",
        'nul\u0000byte',
        '\ud800',
        'Łódź 🔑 ключ',
        '#already-hashed-looking',
        'with:colons:and%percent',
      ];
      for (const key of keys)
        expect(allowedOf(await hits(limiter, key, 3)), JSON.stringify(key.slice(0, 20))).toBe(2);
      const rows = await connection.query<{ count: string | number; longest: number }>(
        `SELECT count(*) AS count, max(length(key)) AS longest FROM ${TOKEN_TABLE}`,
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
      const limiter = postgresTokenBucket({
        db: connection,
        tableName: 'no_such_table',
        keyPrefix: 'p',
        burst: 1,
        perMinute: 1,
      });
      await expect(limiter.hit('k')).rejects.toThrow(/no_such_table/);
      const rows = await connection.query(`SELECT to_regclass('no_such_table') AS t`);
      expect(rows[0]).toEqual({ t: null });
    } finally {
      await connection.close();
    }
  });
});
