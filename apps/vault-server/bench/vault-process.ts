// The vault server under benchmark, started the way users start it: the built command
// (`node dist/cli.js start`, what `vaultline-server start` and `./run.sh start` run), configured by
// its environment, in its own process so that its RSS is its own, on a vault seeded before by
// seed-process.ts. On PGlite the command re-executes itself with its memory settings, in the same
// process: the PID measured is the server's.

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** The built CLI: `pnpm bench` builds it first. */
export const CLI = join(import.meta.dirname, '../dist/cli.js');

/**
 * Runs the built `vaultline-server` command (upstream add, keys create) and resolves with its stdout.
 *
 * @param args The arguments.
 * @param env More environment.
 * @param input What it reads on stdin.
 */
export function cli(args: string[], env: Record<string, string>, input = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...process.env, ...env } },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${args.join(' ')}: ${stderr}`)) : resolve(stdout),
    );
    child.stdin?.end(input);
  });
}

/** Idle: after the engine's start-up work (WebAssembly compilation on PGlite) has settled. */
const SETTLE_MS = 3_000;

/** The RSS of a process, in MiB with one decimal. */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
}

/** CPU time (user + system) of a process so far, in microseconds. */
export function cpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / 100;
}

/**
 * Starts `vaultline-server start` on a store and waits until it listens and has settled.
 *
 * @param store The engine.
 * @param target The PGlite data directory or the PostgreSQL URL.
 * @param env More environment (VAULTLINE_MASTER_KEY for PostgreSQL).
 * @param cli The built command: this package's, or the last release's (bench/release.ts).
 * @returns The child and {url, rssIdleMiB}.
 */
export async function startVaultProcess(
  store: 'pglite' | 'postgres',
  target: string,
  env: Record<string, string> = {},
  cli: string = CLI,
): Promise<{ child: ChildProcess; info: Record<string, string | number> }> {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build the package first (pnpm bench does).`);
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    // The benchmark machines may run as root.
    VAULTLINE_ALLOW_ROOT: '1',
    ...env,
    VAULTLINE_HOST: '127.0.0.1',
    VAULTLINE_PORT: '0',
    VAULTLINE_RATE_LIMIT_PER_MINUTE: '100000000',
  };
  if (store === 'postgres') {
    childEnv.DATABASE_URL = target;
    delete childEnv.VAULTLINE_DATA_DIR;
  } else {
    childEnv.VAULTLINE_DATA_DIR = target;
    delete childEnv.DATABASE_URL;
  }
  // The production log destination (stdout) at the production log level, into /dev/null.
  const child = spawn(process.execPath, [cli, 'start'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: childEnv,
  });
  let said = '';
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stderr! });
    lines.on('line', (line) => {
      said += `${line}\n`;
      const found = /listening on (\S+)/.exec(line);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`vaultline-server start exited with ${code}: ${said}`)));
  });
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  return { child, info: { url, rssIdleMiB: rssMiB(child.pid!) } };
}
