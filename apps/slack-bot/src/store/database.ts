import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { MIGRATIONS } from './migrations.ts';

/** The result of one statement. */
export interface QueryResult<T> {
  rows: T[];
  /** Rows inserted, updated or deleted. */
  rowCount: number;
}

/**
 * The bot's store: the same SQL on embedded PGlite (one bot process, a data directory) and on
 * PostgreSQL (several bot processes sharing state).
 */
export interface Database {
  /** Which engine is behind it. */
  readonly kind: 'pglite' | 'postgres';
  /**
   * Runs one parameterised statement ($1, $2, …).
   *
   * @param sql The statement.
   * @param params Its parameters.
   * @returns The rows and how many were changed.
   */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>>;
  /** Closes the connections (PGlite flushes its directory). */
  close(): Promise<void>;
  /** PGlite only: the whole store as a tarball, to start in-memory copies from. */
  dump?: () => Promise<Blob>;
}

const INT8_OID = 20;

async function openPglite(dataDir: string, snapshot: Blob | undefined): Promise<Database> {
  // A snapshot (a dumped, migrated store) skips PGlite's initdb: tests start many bots.
  const db = await PGlite.create(snapshot ? { loadDataDir: snapshot } : { dataDir });
  return {
    kind: 'pglite',
    dump: () => db.dumpDataDir('none'),
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const result = await db.query<T>(sql, params as unknown[]);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    },
    close: () => db.close(),
  };
}

async function openPostgres(connectionString: string): Promise<Database> {
  const pool = new pg.Pool({
    connectionString,
    max: 10,
    // Times are bigint milliseconds, always safe integers: read them as numbers, as PGlite does.
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8_OID
          ? Number
          : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client that loses its server must not crash the bot.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return {
    kind: 'postgres',
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const result = await pool.query(sql, params as unknown[]);
      return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
    },
    close: () => pool.end(),
  };
}

/** Where the store lives. */
export type StoreLocation = { kind: 'pglite'; dataDir: string } | { kind: 'postgres'; url: string };

/** Options of {@link openDatabase}. */
export interface OpenOptions {
  /** For in-memory PGlite: start from this dump instead of an empty directory. */
  snapshot?: Blob | undefined;
}

/**
 * Opens the store and brings its schema up to date. Safe to run from several processes at once
 * on PostgreSQL (an advisory lock orders them).
 *
 * @param location A PGlite data directory (`memory://` keeps it in memory) or a PostgreSQL URL.
 * @param options A snapshot to start an in-memory PGlite from.
 * @returns The database.
 */
export async function openDatabase(location: StoreLocation, options: OpenOptions = {}): Promise<Database> {
  const db =
    location.kind === 'pglite'
      ? await openPglite(location.dataDir, options.snapshot)
      : await openPostgres(location.url);
  try {
    await migrate(db);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
  return db;
}

async function migrate(db: Database): Promise<void> {
  // One lock for every bot process migrating the same database; PGlite has one process anyway.
  if (db.kind === 'postgres') await db.query('SELECT pg_advisory_lock(724611)');
  try {
    await db.query('CREATE TABLE IF NOT EXISTS bot_schema (version integer PRIMARY KEY)');
    const { rows } = await db.query<{ version: number }>('SELECT max(version) AS version FROM bot_schema');
    const current = rows[0]?.version ?? 0;
    for (const [index, statements] of MIGRATIONS.entries()) {
      const version = index + 1;
      if (version <= current) continue;
      for (const sql of statements) await db.query(sql);
      await db.query('INSERT INTO bot_schema (version) VALUES ($1)', [version]);
    }
  } finally {
    if (db.kind === 'postgres') await db.query('SELECT pg_advisory_unlock(724611)');
  }
}
