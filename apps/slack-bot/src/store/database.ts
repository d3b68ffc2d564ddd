import {
  type Database,
  migrate,
  openDatabase as openStore,
  type PgliteOptions,
  type StoreLocation,
} from '@vaultline/store';
import { MIGRATIONS } from './migrations.ts';

/** The table that records the store's applied versions. */
const MIGRATIONS_TABLE = 'bot_schema';

/**
 * The advisory lock bot processes migrate under (the key every release has used: processes of an
 * older and a newer release starting together wait for each other too).
 */
const MIGRATION_LOCK_KEY = 724611;

/**
 * Brings the bot's schema up to date: each migration once, in one transaction, under the advisory
 * lock (`@vaultline/store`'s `migrate`).
 *
 * @param db The store.
 * @returns The versions applied now.
 */
export function migrateStore(db: Database): Promise<number[]> {
  return migrate(db, MIGRATIONS, { table: MIGRATIONS_TABLE, lockKey: MIGRATION_LOCK_KEY });
}

/** Options of {@link openDatabase}. */
export interface OpenOptions {
  /** For in-memory PGlite: start from this dump instead of an empty directory. */
  snapshot?: PgliteOptions['snapshot'];
}

/**
 * Opens the bot's store (`@vaultline/store`: embedded PGlite for one bot process, PostgreSQL for
 * several sharing state) and brings its schema up to date. Safe to run from several processes at
 * once on PostgreSQL (an advisory lock orders them).
 *
 * @param location A PGlite data directory (`memory://` keeps it in memory) or a PostgreSQL URL.
 * @param options A snapshot to start an in-memory PGlite from.
 * @returns The database.
 */
export async function openDatabase(location: StoreLocation, options: OpenOptions = {}): Promise<Database> {
  const db = await openStore(
    location.kind === 'pglite' && options.snapshot ? { ...location, snapshot: options.snapshot } : location,
  );
  try {
    await migrateStore(db);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
  return db;
}
