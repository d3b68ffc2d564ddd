// The two databases a limiter shares counts through: embedded PGlite and a throwaway PostgreSQL
// cluster (started by the vault server's test support, from the binaries in PG_BIN_DIR).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import {
  type PostgresCluster,
  startPostgresCluster,
} from '../../../../apps/vault-server/test/support/postgres-cluster.ts';
import type { QueryRows } from '../../src/index.ts';

/** One open connection to a database: what an app hands its limiters. */
export interface Connection {
  query: (text: string, values?: unknown[]) => Promise<QueryRows>;
  close(): Promise<void>;
}

/** A database that outlives its connections (a "restart" opens a new one). */
export interface Database {
  connect(): Promise<Connection>;
}

export interface Backend {
  readonly name: 'pglite' | 'postgres';
  /** A fresh, empty database. */
  fresh(): Promise<Database>;
  /** Makes the store unreachable for `connection`; `restore` (PostgreSQL) brings it back. */
  outage(connection: Connection): Promise<{ restore?: () => Promise<void> }>;
  stop(): Promise<void>;
}

export function pgliteBackend(): Backend {
  const dirs: string[] = [];
  return {
    name: 'pglite',
    async fresh() {
      const dir = await mkdtemp(join(tmpdir(), 'rate-limit-pglite-'));
      dirs.push(dir);
      return {
        async connect() {
          const db = await PGlite.create({ dataDir: dir });
          return {
            // PGlite's own result shape ({ rows, affectedRows }), passed on as an app does.
            query: async (text, values) => {
              const result = await db.query(text, values);
              return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
            },
            close: () => db.close(),
          };
        },
      };
    },
    async outage(connection) {
      await connection.close();
      return {};
    },
    async stop() {
      await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}

export async function postgresBackend(): Promise<Backend> {
  const cluster: PostgresCluster = await startPostgresCluster();
  return {
    name: 'postgres',
    async fresh() {
      const url = await cluster.createDatabase();
      return {
        async connect() {
          const pool = new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 2000 });
          pool.on('error', () => {});
          return {
            // An app's own Database wrapper that answers the rows only.
            query: async (text, values) => (await pool.query(text, values)).rows,
            close: () => pool.end(),
          };
        },
      };
    },
    async outage() {
      await cluster.pause();
      return { restore: () => cluster.resume() };
    },
    stop: () => cluster.stop(),
  };
}
