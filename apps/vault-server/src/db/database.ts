/** The storage seam: the same SQL runs on embedded PGlite and on PostgreSQL. */

import type { ChangeFeed, ChangeHandlers } from './changes.ts';

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
  /**
   * PostgreSQL only: listens to what any writer changes (see `changes.ts`). Absent on PGlite,
   * where this process is the only writer.
   */
  listen?(handlers: ChangeHandlers): ChangeFeed;
  /** Closes the connections (PGlite flushes its directory). */
  close(): Promise<void>;
}

/**
 * A database whose statements all run in one open transaction: `transaction(work)` runs `work` in
 * it too. Store operations given this database join the caller's transaction (the import commits
 * everything, or nothing).
 *
 * @param kind The engine.
 * @param tx The open transaction.
 * @returns The database view of it; `close` does nothing.
 */
export function withinTransaction(kind: Database['kind'], tx: Queryable): Database {
  return {
    kind,
    query: (sql, params) => tx.query(sql, params),
    exec: (sql) => tx.exec(sql),
    transaction: (work) => work(tx),
    close: async () => {},
  };
}
