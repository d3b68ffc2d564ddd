/**
 * The storage seam every app writes its SQL against: the same statements run on embedded PGlite
 * and on PostgreSQL ≥ 15.
 *
 * @module
 */

/** Runs statements. */
export interface Queryable {
  /**
   * Runs one parameterised statement (`$1`, `$2`, …).
   *
   * @param sql The statement.
   * @param params Its parameters.
   * @returns The rows (none for a statement that returns none).
   */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /**
   * Runs a script of one or more statements without parameters.
   *
   * @param sql The script.
   */
  exec(sql: string): Promise<void>;
}

/** Which engine is behind a {@link Database}. */
export type DatabaseKind = 'pglite' | 'postgres';

/** A database: statements, transactions, and a way to close it. */
export interface Database extends Queryable {
  /** Which engine is behind it. */
  readonly kind: DatabaseKind;
  /**
   * Runs `work` in one transaction on one connection: committed when it resolves, rolled back
   * when it throws.
   *
   * @param work What to run; its statements go through the `tx` it is given.
   * @returns What `work` returned.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Closes the connections (PGlite flushes its directory). */
  close(): Promise<void>;
}

/** Embedded PGlite: one process owns the data. */
export interface PgliteDatabase extends Database {
  readonly kind: 'pglite';
  /**
   * The whole database as a tarball, to start in-memory copies from (see `snapshot` in
   * {@link PgliteOptions}).
   */
  dump(): Promise<Blob>;
}

/** A PostgreSQL connection pool: any number of processes share the data. */
export interface PostgresDatabase extends Database {
  readonly kind: 'postgres';
}

/** Options of {@link openPglite}. */
export interface PgliteOptions {
  /** The data directory (created when missing); in memory when absent or `memory://`. */
  dataDir?: string | undefined;
  /** Start from this dump (of {@link PgliteDatabase.dump}) in memory instead; skips initdb. */
  snapshot?: Blob | undefined;
  /**
   * PGlite extensions to load, e.g. `{ pg_trgm }` from `@electric-sql/pglite/contrib/pg_trgm`
   * (import it where it is used, so that a process on PostgreSQL never loads it).
   */
  extensions?: Readonly<Record<string, unknown>> | undefined;
  /**
   * PostgreSQL settings (`name=value`) applied after the store's own (`PGLITE_SETTINGS`), which
   * they override: e.g. a smaller `shared_buffers` for a database that holds little.
   */
  settings?: readonly string[] | undefined;
}

/** Options of {@link openPostgres}. */
export interface PostgresOptions {
  /** The connection string (`postgres://user:password@host:port/database`). */
  url: string;
  /** The most connections held; 10 by default. */
  poolSize?: number | undefined;
  /**
   * The `application_name` its connections give PostgreSQL (shown in `pg_stat_activity`): how an
   * application tells its own sessions from others'.
   */
  applicationName?: string | undefined;
}

/** Where a database lives: a PGlite directory (or memory), or a PostgreSQL server. */
export type StoreLocation = ({ kind: 'pglite' } & PgliteOptions) | ({ kind: 'postgres' } & PostgresOptions);

/**
 * A database whose statements all run in one open transaction: `transaction(work)` runs `work` in
 * it too. Operations given this database join the caller's transaction (an import commits
 * everything, or nothing).
 *
 * @param kind The engine.
 * @param tx The open transaction.
 * @returns The database view of it; `close` does nothing.
 */
export function withinTransaction(kind: DatabaseKind, tx: Queryable): Database {
  return {
    kind,
    query: (sql, params) => tx.query(sql, params),
    exec: (sql) => tx.exec(sql),
    transaction: (work) => work(tx),
    close: async () => {},
  };
}
