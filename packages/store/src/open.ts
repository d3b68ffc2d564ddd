/**
 * Opening a database. Each engine's module is loaded only when that engine is opened: a process
 * on PGlite never holds `pg`, and one on PostgreSQL never holds PGlite's WebAssembly (tens of MiB).
 *
 * @module
 */

import type {
  Database,
  PgliteDatabase,
  PgliteOptions,
  PostgresDatabase,
  PostgresOptions,
  StoreLocation,
} from './database.ts';

/**
 * Opens embedded PGlite (PostgreSQL in WebAssembly, in this process) with start-up settings sized
 * for one process: a 4MB buffer pool, 5 connection slots, 16MB maintenance memory (see the
 * package's README).
 *
 * @param options The data directory (in memory without one), a dump to start from, extensions.
 * @returns The database.
 */
export async function openPglite(options: PgliteOptions = {}): Promise<PgliteDatabase> {
  const { createPglite } = await import('./pglite.ts');
  return createPglite(options);
}

/**
 * Connects to PostgreSQL with a pool, and checks once that a connection can be made.
 *
 * @param options The connection string and the pool's size (10 by default).
 * @returns The database.
 */
export async function openPostgres(options: PostgresOptions): Promise<PostgresDatabase> {
  const { createPostgres } = await import('./postgres.ts');
  return createPostgres(options);
}

/**
 * Opens the database at a location: {@link openPglite} or {@link openPostgres}.
 *
 * @param location Where it lives.
 * @returns The database.
 */
export function openDatabase(location: StoreLocation): Promise<Database> {
  return location.kind === 'postgres' ? openPostgres(location) : openPglite(location);
}
