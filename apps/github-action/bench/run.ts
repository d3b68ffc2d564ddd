// Benchmark of the GitHub Action, with plain `node bench/run.ts` (Node ≥ 23.6 strips the types).
// The Action with 10 references (its bundle started as a runner starts it, with INPUT_*
// variables and a GITHUB_ENV file) against the named baseline "vaultline run": the same 10
// references resolved by `vaultline run -- true`, measured interleaved in the same run.
// Goal: the Action's wall time at most 1.2× the baseline's.

import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVaultClient } from '@vaultline/protocol';
import { startBenchmark } from '@vaultline/repo/benchmarks';
import { startTestVault } from '@vaultline/vault-server/testing';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const GOAL = 1.2;
const bench = startBenchmark({
  id: 'github-action',
  package: '@vaultline/github-action',
  script: 'bench/run.ts',
  command: 'pnpm --filter @vaultline/github-action bench',
});
const ACTION = join(import.meta.dirname, '..', 'dist', 'index.mjs');
const CLI = join(import.meta.dirname, '..', '..', 'cli', 'dist', 'cli.js');

/** Wall time of one process, ms; fails on a non-zero exit. */
function wallOf(args: string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`${args[0]} exited with ${code}`)),
    );
  });
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const vault = await startTestVault();
const home = await mkdtemp(join(tmpdir(), 'vaultline-action-bench-'));
try {
  await vault.admin.createUser({ login: 'bench' });
  await vault.admin.createRole({ name: 'bench' });
  await vault.admin.assignRole('bench', 'bench');
  const admin = createVaultClient({ baseUrl: vault.url, auth: vault.adminKey });
  const { id: folderId } = await admin.folders.create({ title: 'Bench', complexityLevel: 0, parentId: 0 });
  await vault.admin.grant('bench', folderId, 'R');
  const refs: Record<string, string> = {};
  for (let i = 0; i < 10; i++) {
    const { id } = await admin.items.create({
      label: `bench ${i}`,
      password: `Bench-Secret-${i}-Zq9`,
      folderId,
    });
    // Half by id, half by path, as the CLI's bench.
    refs[`REF_${i}`] = i % 2 === 0 ? `vaultline://${id}/password` : `vaultline://Bench/bench%20${i}/password`;
  }
  const key = await vault.admin.createKey({ label: 'bench', login: 'bench' });
  const base = { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: join(home, 'config') };
  const envFile = join(home, 'github_env');
  const action = {
    ...base,
    ...refs,
    GITHUB_ENV: envFile,
    INPUT_URL: vault.url,
    'INPUT_API-KEY': key,
    INPUT_LOGIN: 'bench',
    'INPUT_EXPORT-ENV': 'true',
  };
  const run = {
    ...base,
    ...refs,
    VAULTLINE_URL: vault.url,
    VAULTLINE_API_KEY: key,
    VAULTLINE_LOGIN: 'bench',
  };
  const once = async () => {
    await writeFile(envFile, '');
    return wallOf([ACTION], action);
  };
  // Warm up the file cache and the server.
  await once();
  await wallOf([CLI, 'run', '--', 'true'], run);

  const actionTimes: number[] = [];
  const runTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Interleaved, so both see the same machine load.
    actionTimes.push(await once());
    runTimes.push(await wallOf([CLI, 'run', '--', 'true'], run));
  }
  const ratio = median(actionTimes) / median(runTimes);
  console.log(`The Action with 10 references (5 by id, 5 by path), ${ROUNDS} rounds, median wall times:`);
  console.log(`  machine: ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)}`);
  console.log(`  vaultline run -- true (baseline)  ${median(runTimes).toFixed(1).padStart(7)} ms`);
  console.log(`  the Action (dist/index.mjs)       ${median(actionTimes).toFixed(1).padStart(7)} ms`);
  console.log(`  ratio ${ratio.toFixed(2)}x; goal ≤ ${GOAL}x: ${ratio <= GOAL ? 'met' : 'NOT met'}`);
  bench.record(
    [
      {
        figure: 'the Action with 10 references, wall time over `vaultline run` of the same references',
        result: `${ratio.toFixed(2)}× (${median(actionTimes).toFixed(0)} ms vs ${median(runTimes).toFixed(0)} ms)`,
        goal: `≤ ${GOAL}×`,
      },
    ],
    { rounds: ROUNDS },
  );
} finally {
  await vault.close();
  await rm(home, { recursive: true, force: true });
}
