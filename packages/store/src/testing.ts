/**
 * Test support, Node only: a throwaway PostgreSQL cluster started from the binaries on the machine
 * (`PG_BIN_DIR`, by default PostgreSQL 15's Debian path), for the tests and benchmarks of every
 * package and app that runs on PostgreSQL.
 *
 * @example
 * ```ts
 * const cluster = await startPostgresCluster();
 * const url = await cluster.createDatabase(); // a fresh, empty database
 * await cluster.stop();
 * ```
 * @module
 */

import { execFile } from 'node:child_process';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A throwaway PostgreSQL cluster from the binaries on the machine (trust authentication, no fsync). */
export interface PostgresCluster {
  readonly port: number;
  /** A connection string to a fresh, empty database. */
  createDatabase(): Promise<string>;
  /** Stops the database server at once, keeping its data (an outage). */
  pause(): Promise<void>;
  /** Starts it again on the same port. */
  resume(): Promise<void>;
  /** Stops it and deletes its data. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

let counter = 0;

/**
 * Starts a cluster: initdb into a temp dir and pg_ctl start on a free port of 127.0.0.1 (200
 * connection slots). initdb refuses to run as root, so as root it runs as the `postgres` user.
 *
 * @returns The running cluster; stop it when done.
 */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';
  const root = await mkdtemp(join(tmpdir(), 'vaultline-pg-'));
  const dataDir = join(root, 'data');
  const asRoot = process.getuid?.() === 0;
  const { stdout: uidText } = asRoot ? await run('id', ['-u', 'postgres']) : { stdout: '' };
  const { stdout: gidText } = asRoot ? await run('id', ['-g', 'postgres']) : { stdout: '' };
  if (asRoot) {
    await chown(root, Number(uidText.trim()), Number(gidText.trim()));
    await chmod(root, 0o700);
  }
  const exec = (file: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, file), ...args]) : run(join(bin, file), args);
  await exec('initdb', [
    '-D',
    dataDir,
    '-A',
    'trust',
    '-U',
    'postgres',
    '--no-sync',
    '-E',
    'UTF8',
    '--locale=C',
  ]);
  let port = 0;
  const start = () =>
    exec('pg_ctl', [
      '-D',
      dataDir,
      '-l',
      join(root, 'server.log'),
      '-o',
      `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`,
      '-w',
      'start',
    ]);
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      await start();
      break;
    } catch (error) {
      if (attempt >= 2) throw error;
    }
  }
  const base = `postgres://postgres@127.0.0.1:${port}`;
  return {
    port,
    async createDatabase() {
      const name = `vaultline_${process.pid}_${++counter}`;
      await exec('psql', [
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-U',
        'postgres',
        '-d',
        'postgres',
        '-qc',
        `CREATE DATABASE ${name}`,
      ]);
      return `${base}/${name}`;
    },
    async pause() {
      await exec('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
    },
    async resume() {
      await start();
    },
    async stop() {
      await exec('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      await rm(root, { recursive: true, force: true });
    },
  };
}
