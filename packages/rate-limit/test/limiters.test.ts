// The limiters' logic with a clock of the test's own; the store parts run against real
// databases in shared-limits.test.ts.
import { openPglite } from '@vaultline/store';
import { describe, expect, it } from 'vitest';
import {
  exactLimiter,
  MAX_PLAIN_KEY_LENGTH,
  memoryLimiter,
  postgresCounter,
  rateLimitTableSql,
  storageKey,
  writeBehindLimiter,
} from '../src/index.ts';

describe('storageKey', () => {
  it('keeps short plain keys and hashes the rest, so that distinct keys stay distinct', () => {
    expect(storageKey('U123ABC')).toBe('U123ABC');
    expect(storageKey('203.0.113.7')).toBe('203.0.113.7');
    const odd = ['', '#U1', 'a'.repeat(MAX_PLAIN_KEY_LENGTH + 1), 'a\u0000b', '\ud800', '\ud801', 'tab\t'];
    const stored = odd.map(storageKey);
    for (const key of stored) expect(key).toMatch(/^#[A-Za-z0-9_-]{43}$/);
    expect(new Set(stored).size).toBe(odd.length);
    expect(storageKey('a'.repeat(MAX_PLAIN_KEY_LENGTH))).toHaveLength(MAX_PLAIN_KEY_LENGTH);
  });

  it('refuses what is not a string', () => {
    expect(() => storageKey(42 as unknown as string)).toThrow(TypeError);
  });
});

describe('memoryLimiter', () => {
  it('allows points per window, says when to retry, and starts again in the next window', async () => {
    let now = 1_000_000;
    const limiter = memoryLimiter({ points: 3, durationSeconds: 10, now: () => now });
    expect(limiter.points).toBe(3);
    for (let i = 0; i < 3; i++) expect((await limiter.hit('k')).allowed).toBe(true);
    now += 2_500;
    expect(await limiter.hit('k')).toEqual({ allowed: false, retryAfterSeconds: 8 });
    now += 7_499;
    expect(await limiter.hit('k')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now += 1;
    expect((await limiter.hit('k')).allowed).toBe(true);
    await limiter.flush();
    await limiter.close();
  });

  it('keeps at most maxKeys keys: a flood of distinct keys forgets the oldest', async () => {
    const limiter = memoryLimiter({ points: 1, durationSeconds: 60, maxKeys: 100 });
    expect((await limiter.hit('first')).allowed).toBe(true);
    expect((await limiter.hit('first')).allowed).toBe(false);
    for (let i = 0; i < 1000; i++) await limiter.hit(`flood-${i}`);
    expect((await limiter.hit('first')).allowed).toBe(true);
  });

  it('refuses bad options with a clear error', () => {
    expect(() => memoryLimiter({ points: 0, durationSeconds: 1 })).toThrow(
      /points must be a positive integer/,
    );
    expect(() => memoryLimiter({ points: 1, durationSeconds: 0.5 })).toThrow(/durationSeconds/);
  });
});

describe('writeBehindLimiter and exactLimiter options', () => {
  it('reads points and window from the counter and refuses a window that differs', () => {
    const shared = postgresCounter({
      db: { query: async () => [] },
      tableName: 'limits',
      keyPrefix: 'opts',
      points: 7,
      durationSeconds: 30,
    });
    expect(writeBehindLimiter({ shared }).points).toBe(7);
    expect(writeBehindLimiter({ shared, points: 3 }).points).toBe(3);
    expect(() => writeBehindLimiter({ shared, durationSeconds: 60 })).toThrow(/differs/);
    expect(exactLimiter(shared).points).toBe(7);
    expect(() => exactLimiter(shared, 8)).toThrow(/differ/);
  });

  it('refuses a table name or key prefix that is not plain', () => {
    const base = { db: { query: async () => [] }, points: 1, durationSeconds: 1 };
    expect(() => postgresCounter({ ...base, tableName: 'x"; DROP', keyPrefix: 'p' })).toThrow(/tableName/);
    expect(() => postgresCounter({ ...base, tableName: 'Limits', keyPrefix: 'p' })).toThrow(/tableName/);
    expect(() => postgresCounter({ ...base, tableName: 't', keyPrefix: 'a:b' })).toThrow(/keyPrefix/);
    expect(() => postgresCounter({ ...base, tableName: 't', keyPrefix: 'p'.repeat(65) })).toThrow(
      /keyPrefix/,
    );
    expect(() => rateLimitTableSql('t; DROP TABLE users')).toThrow(/tableName/);
  });

  it("runs no DDL: its table comes from the app's migration, which can run again", async () => {
    const db = await openPglite();
    try {
      const statements: string[] = [];
      const shared = postgresCounter({
        db: {
          query: (sql, params) => {
            statements.push(sql);
            return db.query(sql, params);
          },
        },
        tableName: 'limits',
        keyPrefix: 'ddl',
        points: 2,
        durationSeconds: 60,
      });
      const limiter = exactLimiter(shared);
      // Without the migration the counter fails its hits; it never creates the table itself.
      await expect(limiter.hit('k')).rejects.toThrow(/relation "limits" does not exist/);
      expect(await db.query("SELECT to_regclass('limits') AS t")).toEqual([{ t: null }]);
      await db.exec(rateLimitTableSql('limits'));
      await db.exec(rateLimitTableSql('limits'));
      expect((await limiter.hit('k')).allowed).toBe(true);
      expect((await limiter.hit('k')).allowed).toBe(true);
      expect((await limiter.hit('k')).allowed).toBe(false);
      expect(statements.filter((sql) => /\b(CREATE|ALTER|DROP)\b/i.test(sql))).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('decides a first hit without the shared count when the store does not answer in time', async () => {
    const errors: string[] = [];
    const shared = postgresCounter({
      // A store that never answers (a network black hole).
      db: { query: () => new Promise(() => {}) },
      tableName: 't',
      keyPrefix: 'hung',
      points: 2,
      durationSeconds: 60,
    });
    const limiter = writeBehindLimiter({
      shared,
      loadTimeoutMs: 200,
      onError: (error, phase) => errors.push(`${phase}: ${(error as Error).message}`),
    });
    const started = performance.now();
    const decisions = await Promise.all([limiter.hit('k'), limiter.hit('k'), limiter.hit('k')]);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, false]);
    expect(errors).toEqual(['load: the shared count was not read within 200 ms']);
  });

  it('throws a store error from an exact limiter (the caller decides), and an onError that throws is ignored', async () => {
    const failing = postgresCounter({
      db: {
        query: async () => {
          throw new Error('connection refused');
        },
      },
      tableName: 't',
      keyPrefix: 'down',
      points: 2,
      durationSeconds: 60,
    });
    await expect(exactLimiter(failing).hit('k')).rejects.toThrow(/connection refused/);
    const limiter = writeBehindLimiter({
      shared: failing,
      onError: () => {
        throw new Error('a logger that throws');
      },
    });
    expect((await limiter.hit('k')).allowed).toBe(true);
    await limiter.close();
    expect((await limiter.hit('k')).allowed).toBe(true);
    expect((await limiter.hit('k')).allowed).toBe(false);
  });
});
