// pnpm bench: read/items of this code beside the last release (tooling/repo/last-release.json,
// built once in the OS temp dir), and raw node:http, in interleaved rounds of the same run: req/s,
// the server's CPU per request, and each server's idle RSS. Each server runs on a small vault
// seeded by its own version's bench/seed-process.ts (a newer vault does not open in an older
// server), in PGlite and in PostgreSQL.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startBenchmark } from '@vaultline/repo/benchmarks';
import { buildLastRelease } from '@vaultline/repo/release';
import { startPostgresCluster } from '@vaultline/store/testing';
import autocannon from 'autocannon';
import { generateMasterKey } from '../src/crypto/master-key.ts';
import { cpuUs, startVaultProcess } from './vault-process.ts';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 16;
const bench = startBenchmark({
  id: 'vault-server-release',
  package: '@vaultline/vault-server',
  script: 'bench/release.ts',
  command: 'pnpm --filter @vaultline/vault-server bench',
});
const release = buildLastRelease(['@vaultline/vault-server']);
const SIDES = {
  current: join(import.meta.dirname, '..'),
  release: join(release.dir, 'apps/vault-server'),
} as const;
type Side = keyof typeof SIDES;

async function firstLine(script: string, args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, info: JSON.parse(line) as Record<string, string> };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

interface Load {
  rps: number;
  requests: number;
  cpuUs: number;
  errors: number;
}

async function load(url: string, pid?: number, duration = DURATION_S): Promise<Load> {
  const before = pid === undefined ? 0 : cpuUs(pid);
  const result = await autocannon({ url, connections: CONNECTIONS, duration });
  return {
    rps: Math.round(result.requests.average),
    requests: result.requests.total,
    cpuUs: pid === undefined ? 0 : cpuUs(pid) - before,
    errors: result.errors + result.non2xx,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round2 = (value: number) => Math.round(value * 100) / 100;

interface StoreFigures {
  rps: Record<Side | 'raw', number>;
  cpuUsPerRequest: Record<Side, number>;
  idleRssMiB: Record<Side, number>;
}

const results: Partial<Record<'pglite' | 'postgres', StoreFigures>> = {};
const cluster = await startPostgresCluster();
const temp = await mkdtemp(join(tmpdir(), 'vaultline-bench-release-'));
try {
  for (const store of ['pglite', 'postgres'] as const) {
    const servers = {} as Record<Side, { child: ChildProcess; url: string; idleRssMiB: number }>;
    const env = store === 'postgres' ? { VAULTLINE_MASTER_KEY: generateMasterKey() } : {};
    try {
      for (const side of Object.keys(SIDES) as Side[]) {
        const target = store === 'postgres' ? await cluster.createDatabase() : join(temp, `${store}-${side}`);
        const seed = await firstLine(join(SIDES[side], 'bench/seed-process.ts'), [store, target, '0'], env);
        await stop(seed.child);
        const vault = await startVaultProcess(store, target, env, join(SIDES[side], 'dist/cli.js'));
        servers[side] = {
          child: vault.child,
          url: `${vault.info.url}${seed.info.readPath}?apikey=${seed.info.key}`,
          idleRssMiB: Number(vault.info.rssIdleMiB),
        };
      }
      const bodyFile = join(temp, `body-${store}.json`);
      writeFileSync(bodyFile, Buffer.from(await (await fetch(servers.current.url)).arrayBuffer()));
      const raw = await firstLine(join(import.meta.dirname, 'raw-server.ts'), [bodyFile], {});
      const urls: Record<Side | 'raw', string> = {
        raw: `${raw.info.url}/`,
        current: servers.current.url,
        release: servers.release.url,
      };
      const pidOf = (name: Side | 'raw') => (name === 'raw' ? undefined : servers[name].child.pid);
      const names = ['raw', 'current', 'release'] as const;
      for (const name of names) await load(urls[name], undefined, 1);
      const runs: Record<Side | 'raw', Load[]> = { raw: [], current: [], release: [] };
      for (let round = 0; round < ROUNDS; round++)
        for (const name of names) runs[name].push(await load(urls[name], pidOf(name)));
      await stop(raw.child);
      const failed = names.filter((name) => runs[name].some((run) => run.errors > 0));
      if (failed.length > 0) throw new Error(`${store}: errors in the runs of ${failed.join(', ')}`);
      const perRequest = (side: Side) =>
        Math.round(
          runs[side].reduce((sum, run) => sum + run.cpuUs, 0) /
            runs[side].reduce((sum, run) => sum + run.requests, 0),
        );
      results[store] = {
        rps: {
          raw: median(runs.raw.map((run) => run.rps)),
          current: median(runs.current.map((run) => run.rps)),
          release: median(runs.release.map((run) => run.rps)),
        },
        cpuUsPerRequest: { current: perRequest('current'), release: perRequest('release') },
        idleRssMiB: { current: servers.current.idleRssMiB, release: servers.release.idleRssMiB },
      };
    } finally {
      for (const server of Object.values(servers)) await stop(server.child);
    }
  }
} finally {
  await cluster.stop();
  await rm(temp, { recursive: true, force: true });
}

const STORES = { pglite: 'PGlite', postgres: 'PostgreSQL' } as const;
const each = (describe: (figures: StoreFigures) => string) =>
  (Object.keys(STORES) as (keyof typeof STORES)[])
    .map((store) => `${STORES[store]} ${describe(results[store]!)}`)
    .join('; ');
process.stdout.write(`\nread/items, this code beside ${release.name} (${release.short})\n`);
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
bench.record(
  [
    {
      figure: 'read/items server CPU per request, this code / the last release',
      result: each(
        (f) =>
          `${round2(f.cpuUsPerRequest.current / f.cpuUsPerRequest.release)} (${f.cpuUsPerRequest.current} vs ${f.cpuUsPerRequest.release} µs)`,
      ),
      goal: '≤ 1',
    },
    {
      figure: 'read/items req/s, this code / the last release, and each vs raw `node:http`',
      result: each(
        (f) =>
          `${round2(f.rps.current / f.rps.release)} (${round2(f.rps.current / f.rps.raw)} vs ${round2(f.rps.release / f.rps.raw)} of raw)`,
      ),
      goal: '≥ 1; ≥ 0.6 of raw',
    },
    {
      figure: 'idle RSS on a small vault, this code / the last release',
      result: each(
        (f) =>
          `${round2(f.idleRssMiB.current / f.idleRssMiB.release)} (${f.idleRssMiB.current} vs ${f.idleRssMiB.release} MiB)`,
      ),
      goal: 'PGlite < 120 MiB',
    },
  ],
  { 'seconds per load run': DURATION_S, rounds: ROUNDS, connections: CONNECTIONS },
  release,
);
