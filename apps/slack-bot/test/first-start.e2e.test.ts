// Bot processes started together on a PostgreSQL store nobody has used yet, and a store an earlier
// release migrated: each start must succeed, and the limits must count in the migrations' table.
import { type Database, openPostgres } from '@vaultline/store';
import { type PostgresCluster, startPostgresCluster } from '@vaultline/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimiters } from '../src/limits.ts';
import { openDatabase } from '../src/store/database.ts';
import { MIGRATIONS, RATE_LIMIT_TABLE } from '../src/store/migrations.ts';

const ROUNDS = 10;
const INSTANCES = 4;
const LIMITS = { revealLimit: INSTANCES, revealWindowSeconds: 60, commandLimit: 5, commandWindowSeconds: 60 };

describe('the first start on a PostgreSQL store', () => {
  let cluster: PostgresCluster;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it(`migrates once and counts with the limits of ${INSTANCES} processes at once, on each of ${ROUNDS} fresh databases`, async () => {
    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const url = await cluster.createDatabase();
      const opened = await Promise.allSettled(
        Array.from({ length: INSTANCES }, () => openDatabase({ kind: 'postgres', url })),
      );
      const dbs = opened.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      for (const result of opened)
        if (result.status === 'rejected') failures.push(`round ${round} open: ${String(result.reason)}`);
      try {
        const counted = await Promise.allSettled(
          dbs.map(async (db: Database) => {
            const { revealLimiter, commandLimiter } = createLimiters(db, LIMITS, () => {});
            await commandLimiter.close();
            return (await revealLimiter.hit('U123')).allowed;
          }),
        );
        for (const result of counted)
          if (result.status === 'rejected') failures.push(`round ${round} limits: ${String(result.reason)}`);
          else if (!result.value) failures.push(`round ${round}: a first reveal was refused`);
        if (dbs[0]) {
          expect(await dbs[0].query('SELECT version FROM bot_schema ORDER BY version')).toEqual(
            MIGRATIONS.map(({ version }) => ({ version })),
          );
          expect(
            await dbs[0].query(`SELECT points FROM ${RATE_LIMIT_TABLE} WHERE key = 'reveal:U123'`),
          ).toEqual([{ points: dbs.length }]);
        }
      } finally {
        await Promise.all(dbs.map((db) => db.close()));
      }
    }
    expect(failures).toEqual([]);
  });

  it('keeps a store an earlier release migrated: nothing applied again, its counts kept', async () => {
    const url = await cluster.createDatabase();
    const earlier = await openPostgres({ url });
    try {
      // What the earlier release left: its bookkeeping table (the version alone), version 1's
      // tables, and a user who has revealed twice.
      await earlier.exec(
        'CREATE TABLE bot_schema (version integer PRIMARY KEY); INSERT INTO bot_schema VALUES (1)',
      );
      await earlier.exec(MIGRATIONS[0]!.sql);
      await earlier.query(
        `INSERT INTO ${RATE_LIMIT_TABLE} (key, points, expire) VALUES ('reveal:U9', 2, $1)`,
        [Date.now() + 60_000],
      );
    } finally {
      await earlier.close();
    }
    const db = await openDatabase({ kind: 'postgres', url });
    try {
      // Version 1 kept as the earlier release recorded it; the later ones applied once.
      expect(await db.query('SELECT version, name FROM bot_schema ORDER BY version')).toEqual([
        { version: 1, name: '' },
        ...MIGRATIONS.slice(1).map(({ version, name }) => ({ version, name })),
      ]);
      const { revealLimiter, commandLimiter } = createLimiters(db, { ...LIMITS, revealLimit: 3 }, () => {});
      await commandLimiter.close();
      expect((await revealLimiter.hit('U9')).allowed).toBe(true);
      expect((await revealLimiter.hit('U9')).allowed).toBe(false);
    } finally {
      await db.close();
    }
  });
});
