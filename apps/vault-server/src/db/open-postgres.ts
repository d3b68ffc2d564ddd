import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import pg from 'pg';
import type { Database, Queryable } from './database.ts';
import { listenToChanges } from './listen-postgres.ts';

const INT8_OID = 20;

/**
 * Connects to PostgreSQL with a pool.
 *
 * @param connectionString The `DATABASE_URL`.
 * @param poolSize The most connections held.
 * @returns The database.
 */
export async function openPostgres(connectionString: string, poolSize = 10): Promise<Database> {
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    // Ids are bigint in the schema but always safe integers: read them as numbers, as PGlite does.
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8_OID
          ? Number
          : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client that loses its server must not crash the process.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const client = await pool.connect();
  client.release();
  // Statements with parameters are prepared once per connection (named by their text): the
  // server parses and plans each of them once instead of on every request.
  // Bounded like every cache: a statement text seen again after eviction is named the same way.
  const names = new LRUCache<string, string>({ max: 1_000 });
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
  const base = wrap(pool);
  return {
    kind: 'postgres',
    ...base,
    async transaction(work) {
      const conn = await pool.connect();
      try {
        await conn.query('BEGIN');
        const result = await work(wrap(conn));
        await conn.query('COMMIT');
        return result;
      } catch (error) {
        await conn.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        conn.release();
      }
    },
    listen: (handlers) => listenToChanges(connectionString, handlers),
    close: () => pool.end(),
  };
}
