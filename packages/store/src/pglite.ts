/**
 * Embedded PGlite behind {@link Database}. Loaded only when a PGlite database is opened (see
 * `open.ts`): a process on PostgreSQL never holds PGlite's WebAssembly.
 *
 * @module
 */

import { type Extensions, PGlite, types } from '@electric-sql/pglite';
import { INT8_OID, parseBigint } from './bigint.ts';
import type { PgliteDatabase, PgliteOptions, Queryable } from './database.ts';

/**
 * PostgreSQL's memory settings for the embedded store. PGlite's WebAssembly memory only grows, and
 * every page PostgreSQL touches stays resident: it zeroes its shared memory at start, so the
 * default 128 MB of shared buffers alone would be 128 MiB of RSS from the first second. The data
 * directory's files sit in the OS page cache, so a miss in these buffers costs a copy, not a disk
 * read. Durability is untouched.
 */
export const PGLITE_SETTINGS: readonly string[] = [
  // The buffer pool: the default is 128MB. PGlite touches all of it at start, so each MB is a MiB of
  // RSS even for a tiny database; a miss costs a copy from the OS page cache (see above).
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
 * is hundreds of thousands of strings, tens of MiB of garbage and most of the time an upload takes.
 */
const BYTEA_SERIALIZERS = {
  [types.BYTEA]: (value: Uint8Array) =>
    `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`,
};

/**
 * Opens PGlite: in memory, persisted to a directory, or in memory from a dump.
 *
 * @param options Where the data lives and the extensions to load.
 * @returns The database.
 */
export async function createPglite(options: PgliteOptions): Promise<PgliteDatabase> {
  const db = await PGlite.create({
    ...(options.snapshot !== undefined
      ? { loadDataDir: options.snapshot }
      : options.dataDir !== undefined
        ? { dataDir: options.dataDir }
        : {}),
    ...(options.extensions === undefined ? {} : { extensions: options.extensions as Extensions }),
    serializers: BYTEA_SERIALIZERS,
    parsers: { [INT8_OID]: parseBigint, [types.BYTEA]: (text: string) => Buffer.from(text.slice(2), 'hex') },
    startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS.flatMap((setting) => ['-c', setting])],
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
  return {
    kind: 'pglite',
    ...wrap(db),
    transaction: (work) => db.transaction((tx) => work(wrap(tx))),
    dump: () => db.dumpDataDir('none'),
    close: () => db.close(),
  };
}
