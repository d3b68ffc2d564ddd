/**
 * A PostgreSQL pool behind {@link Database}. Loaded only when a PostgreSQL database is opened (see
 * `open.ts`): a process on PGlite never holds `pg`.
 *
 * @module
 */

import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import pg from 'pg';
import { INT8_OID, parseBigint } from './bigint.ts';
import type { PostgresDatabase, PostgresOptions, Queryable } from './database.ts';

/** The most statement texts whose prepared names are remembered. */
const MAX_NAMED_STATEMENTS = 1_000;

/** `bigint` as numbers (as PGlite reads them, see `bigint.ts`); every other type as pg reads it. */
const getTypeParser = ((oid: number, format?: string) =>
  oid === INT8_OID
    ? parseBigint
    : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser;

/**
 * Connects a pool to PostgreSQL, and checks once that a connection can be made.
 *
 * @param options The connection string and the pool's size.
 * @returns The database.
 */
export async function createPostgres(options: PostgresOptions): Promise<PostgresDatabase> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    ...(options.applicationName === undefined ? {} : { application_name: options.applicationName }),
    types: { getTypeParser },
  });
  // An idle client that loses its server must not crash the process: the next query fails instead.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  try {
    (await pool.connect()).release();
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
  // Statements with parameters are prepared once per connection (named by their text): the server
  // parses and plans each of them once instead of on every call. Bounded like every cache: a
  // statement text seen again after eviction is named the same way.
  const names = new LRUCache<string, string>({ max: MAX_NAMED_STATEMENTS });
  const nameOf = (sql: string): string => {
    let name = names.get(sql);
    if (name === undefined) {
      name = `vl_${hash('sha1', sql, 'hex')}`;
      names.set(sql, name);
    }
    return name;
  };
  const wrap = (target: pg.Pool | pg.PoolClient): Queryable => ({
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const result =
        params.length === 0
          ? await target.query(sql)
          : await target.query({ name: nameOf(sql), text: sql, values: params as unknown[] });
      return result.rows as T[];
    },
    async exec(sql: string) {
      await target.query(sql);
    },
  });
  return {
    kind: 'postgres',
    ...wrap(pool),
    async transaction(work) {
      const conn = await pool.connect();
      // A connection whose ROLLBACK failed is in no known state: it leaves the pool.
      let broken = false;
      try {
        await conn.query('BEGIN');
        const result = await work(wrap(conn));
        await conn.query('COMMIT');
        return result;
      } catch (error) {
        await conn.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw error;
      } finally {
        conn.release(broken);
      }
    },
    close: () => pool.end(),
  };
}
