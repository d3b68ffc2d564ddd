// Bot instances started together on a PostgreSQL store nobody has used yet: each start must succeed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresCluster,
  startPostgresCluster,
} from '../../vault-server/test/support/postgres-cluster.ts';
import { createLimiters } from '../src/limits.ts';
import { type Database, openDatabase } from '../src/store/database.ts';

const ROUNDS = 10;
const INSTANCES = 4;
const LIMITS = { revealLimit: 3, revealWindowSeconds: 60, commandLimit: 5, commandWindowSeconds: 60 };

describe('the first start on a fresh PostgreSQL store', () => {
  let cluster: PostgresCluster;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it(`migrates once and creates the limits of ${INSTANCES} instances at once, on each of ${ROUNDS} fresh databases`, async () => {
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
        const created = await Promise.allSettled(
          dbs.map((db: Database) => createLimiters(db, LIMITS, () => {})),
        );
        for (const result of created)
          if (result.status === 'rejected') failures.push(`round ${round} limits: ${String(result.reason)}`);
          else await result.value.commandLimiter.close();
      } finally {
        await Promise.all(dbs.map((db) => db.close()));
      }
    }
    expect(failures).toEqual([]);
  });
});
