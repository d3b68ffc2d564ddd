/**
 * The database plumbing Vaultline's apps share: embedded PGlite or a PostgreSQL pool behind one
 * {@link Database} interface (each engine loaded only when opened), `bigint` columns read as
 * numbers, and an app's migrations applied once under an advisory lock.
 *
 * @module
 */
export { INT8_OID, parseBigint } from './bigint.ts';
export {
  type Database,
  type DatabaseKind,
  type PgliteDatabase,
  type PgliteOptions,
  type PostgresDatabase,
  type PostgresOptions,
  type Queryable,
  type StoreLocation,
  withinTransaction,
} from './database.ts';
export { type MigrateOptions, type Migration, migrate } from './migrate.ts';
export { openDatabase, openPglite, openPostgres } from './open.ts';
