/** The storage seam: the same SQL runs on embedded PGlite and on PostgreSQL. */

/** Runs statements. */
export interface Queryable {
  /**
   * Runs one parameterised statement ($1, $2, …).
   *
   * @returns The rows.
   */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters. */
  exec(sql: string): Promise<void>;
}

/** A database: statements, transactions, and a way to close it. */
export interface Database extends Queryable {
  /** Which engine is behind it. */
  readonly kind: 'pglite' | 'postgres';
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws.
   *
   * @returns What `work` returned.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Closes the connections (PGlite flushes its directory). */
  close(): Promise<void>;
}
