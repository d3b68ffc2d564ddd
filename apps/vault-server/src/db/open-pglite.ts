import { PGlite, types } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { Database, Queryable } from './database.ts';

/**
 * PostgreSQL's memory settings for the embedded store. PGlite's WebAssembly memory only grows, and
 * every page PostgreSQL touches stays resident: it zeroes its shared memory at start, so the default
 * 128 MB of shared buffers alone would be 128 MiB of RSS from the first second. The data directory's files sit in the OS page
 * cache, so a miss in these buffers costs a copy, not a disk read. Durability is untouched.
 */
const MEMORY_SETTINGS = [
  // The buffer pool: the default is 128MB. PGlite touches all of it at start, so each MB is a MiB of
  // RSS even for a tiny vault; a miss costs a copy from the OS page cache (see above).
  'shared_buffers=4MB',
  // One process, one connection: the default 100 sizes the per-connection shared memory (lock table,
  // process slots) that PostgreSQL zeroes at start, about 4 MiB of RSS for nothing.
  'max_connections=5',
  // CREATE INDEX and VACUUM (migrations): the default 64MB would stay resident after one rebuild.
  'maintenance_work_mem=16MB',
];

/**
 * bytea in and out as one hex string, converted by Buffer. PGlite's own converters go byte by byte
 * (`Array.from(bytes).map(…).join('')`, `parseInt` per pair): for one 128 KiB attachment chunk that
 * is hundreds of thousands of strings, tens of MiB of garbage and most of the time an upload took.
 */
const BYTEA_SERIALIZERS = {
  [types.BYTEA]: (value: Uint8Array) =>
    `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`,
};
const BYTEA_PARSERS = { [types.BYTEA]: (text: string) => Buffer.from(text.slice(2), 'hex') };

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
    serializers: BYTEA_SERIALIZERS,
    parsers: BYTEA_PARSERS,
    startParams: [...PGlite.defaultStartParams, ...MEMORY_SETTINGS.flatMap((setting) => ['-c', setting])],
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
