/**
 * Embedded PGlite behind {@link Database}. Loaded only when a PGlite database is opened (see
 * `open.ts`): a process on PostgreSQL never holds PGlite's WebAssembly.
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
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
  // No WAL senders, replication slots, background workers or autovacuum workers run in PGlite's one
  // process, but their defaults (10, 10, 8, 3) size the lock table and process slots PostgreSQL
  // zeroes at start: 2 MiB of its 6 MiB of shared memory. (autovacuum_max_workers cannot be 0.)
  'max_wal_senders=0',
  'max_replication_slots=0',
  'max_worker_processes=0',
  'autovacuum_max_workers=1',
];

/**
 * The file, beside this module in `dist/`, that holds the data directory of a cluster PGlite's
 * initdb just made (written by `scripts/build-pglite-template.ts` at build time). A new database (an
 * empty data directory, or in memory) is unpacked from it instead of running initdb: PGlite's initdb
 * runs a second PostgreSQL instance beside the first with a copy of its memory, about 530 MiB of
 * RSS at the peak (1.07 GiB without `--liftoff-only`), where unpacking takes a few MiB and a
 * fraction of the time. Without the file (running from the sources), initdb runs as before.
 */
export const PGLITE_TEMPLATE_FILE = 'pglite-template.tar.gz';

/** The template as PGlite loads it, or undefined when there is none (see {@link PGLITE_TEMPLATE_FILE}). */
async function readTemplate(): Promise<Blob | undefined> {
  try {
    return new Blob([await readFile(new URL(`./${PGLITE_TEMPLATE_FILE}`, import.meta.url))]);
  } catch {
    return undefined;
  }
}

/** Whether a data directory holds no cluster yet (missing, or without `PG_VERSION`). */
function isNewDataDir(dataDir: string): boolean {
  return !existsSync(join(dataDir, 'PG_VERSION'));
}

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
  const { dataDir, snapshot } = options;
  // A new cluster is unpacked from the template, when there is one, rather than made by initdb.
  const template =
    snapshot === undefined && (dataDir === undefined || isNewDataDir(dataDir))
      ? await readTemplate()
      : undefined;
  const db = await PGlite.create({
    ...(snapshot !== undefined
      ? { loadDataDir: snapshot }
      : dataDir !== undefined
        ? { dataDir, ...(template ? { loadDataDir: template } : {}) }
        : template
          ? { loadDataDir: template }
          : {}),
    ...(options.extensions === undefined ? {} : { extensions: options.extensions as Extensions }),
    serializers: BYTEA_SERIALIZERS,
    parsers: { [INT8_OID]: parseBigint, [types.BYTEA]: (text: string) => Buffer.from(text.slice(2), 'hex') },
    startParams: [
      ...PGlite.defaultStartParams,
      ...[...PGLITE_SETTINGS, ...(options.settings ?? [])].flatMap((setting) => ['-c', setting]),
    ],
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
