// The two databases a limiter shares counts through, opened as the apps open them
// (@vaultline/store): embedded PGlite and a throwaway PostgreSQL cluster. Each fresh database gets
// the counter tables the way an app's migration creates them.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database, openPglite, openPostgres } from '@vaultline/store';
import { type PostgresCluster, startPostgresCluster } from '@vaultline/store/testing';
import { rateLimitTableSql, tokenBucketTableSql } from '../../src/index.ts';

/** The counter table of every fresh database. */
export const TABLE = 'rate_limits';
/** The token-bucket table of every fresh database. */
export const TOKEN_TABLE = 'token_buckets';

/** One open connection to a database: what an app hands its limiters. */
export type Connection = Database;

/** A database that outlives its connections (a "restart" opens a new one). */
export interface Store {
  connect(): Promise<Connection>;
}

export interface Backend {
  readonly name: 'pglite' | 'postgres';
  /** A fresh database, migrated: the counter table exists. */
  fresh(): Promise<Store>;
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
      const migrated = await openPglite({ dataDir: dir });
      await migrated.exec(`${rateLimitTableSql(TABLE)};\n${tokenBucketTableSql(TOKEN_TABLE)}`);
      await migrated.close();
      return { connect: () => openPglite({ dataDir: dir }) };
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
      const migrated = await openPostgres({ url, poolSize: 1 });
      await migrated.exec(`${rateLimitTableSql(TABLE)};\n${tokenBucketTableSql(TOKEN_TABLE)}`);
      await migrated.close();
      return { connect: () => openPostgres({ url, poolSize: 4 }) };
    },
    async outage() {
      await cluster.pause();
      return { restore: () => cluster.resume() };
    },
    stop: () => cluster.stop(),
  };
}
