import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { Database, Queryable } from './database.ts';

/**
 * Opens the embedded PGlite store, in memory or persisted to a directory.
 *
 * @param dataDir The directory; in memory when undefined.
 * @returns The database.
 */
export async function openPglite(dataDir: string | undefined): Promise<Database> {
  const db = await PGlite.create({
    ...(dataDir === undefined ? {} : { dataDir }),
    extensions: { pg_trgm },
  });
  const wrap = (target: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const result = await target.query<T>(sql, params as unknown[]);
      return result.rows;
    },
    async exec(sql: string) {
      await target.exec(sql);
    },
  });
  const base = wrap(db);
  return {
    kind: 'pglite',
    ...base,
    transaction: (work) => db.transaction((tx) => work(wrap(tx))),
    close: () => db.close(),
  };
}
