// Benchmark of `vaultline run`, with plain `node bench/run.ts` (Node ≥ 23.6 strips the types).
// Overhead of `vaultline run` with 10 references in the environment (goal ≤ 100 ms CPU), against the
// named baseline "direct": the same command started directly, measured in the same run, and the
// HTTP requests one `vaultline run` makes (goal: one round trip per batch).
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBenchmark } from '@vaultline/repo/benchmarks';
import { cpu, ms, type Timing, timed, wall } from './timing.ts';
import { startBenchVault } from './vault.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const bench = startBenchmark({
  id: 'cli',
  package: '@vaultline/cli',
  script: 'bench/run.ts',
  command: 'pnpm --filter @vaultline/cli bench',
});
const CLI = join(import.meta.dirname, '..', 'dist', 'cli.js');
const CHILD = [process.execPath, '-e', 'if (!process.env.REF_9) process.exit(3)'];

const logLines: string[] = [];
const { vault, admin, folderId } = await startBenchVault(logLines);
const home = await mkdtemp(join(tmpdir(), 'vaultline-bench-'));
try {
  const refs: Record<string, string> = {};
  for (let i = 0; i < 10; i++) {
    const { id } = await admin.items.create({
      label: `bench ${i}`,
      password: `Bench-Secret-${i}-Zq9`,
      folderId,
    });
    // Half by id, half by path: both kinds of batch.
    refs[`REF_${i}`] = i % 2 === 0 ? `vaultline://${id}/password` : `vaultline://Bench/bench%20${i}/password`;
  }
  const base = { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: join(home, 'config') };
  const connection = {
    VAULTLINE_URL: vault.url,
    VAULTLINE_API_KEY: vault.adminKey,
    VAULTLINE_LOGIN: 'bench',
  };
  const withRefs = { ...base, ...connection, ...refs };
  const plain = { ...base, ...refs };

  // Warm up the file cache and the server.
  await timed(process.execPath, [CLI, 'run', '--', ...CHILD], withRefs);
  await timed(CHILD[0]!, CHILD.slice(1), plain);

  const before = logLines.length;
  await timed(process.execPath, [CLI, 'run', '--', ...CHILD], withRefs);
  const requests = logLines
    .slice(before)
    .filter((line) => line.includes('"msg":"request"'))
    .map((line) => String((JSON.parse(line) as { op?: unknown }).op));

  const direct: Timing[] = [];
  const run: Timing[] = [];
  const noRefs: Timing[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Interleaved, so all three see the same machine load.
    direct.push(await timed(CHILD[0]!, CHILD.slice(1), plain));
    run.push(await timed(process.execPath, [CLI, 'run', '--', ...CHILD], withRefs));
    noRefs.push(
      await timed(process.execPath, [CLI, 'run', '--', ...CHILD], { ...base, ...connection, REF_9: 'x' }),
    );
  }
  const overhead = wall(run) - wall(direct);
  console.log(`vaultline run, 10 references (5 by id, 5 by path), ${ROUNDS} rounds, medians:`);
  // Wall times stretch with the machine's load; CPU times much less.
  console.log(`  machine: ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)}`);
  console.log('                                    wall        cpu');
  const row = (name: string, timings: Timing[]) =>
    console.log(`  ${name.padEnd(28)} ${ms(wall(timings))} ${ms(cpu(timings))}`);
  row('direct (baseline)', direct);
  row('vaultline run, no references', noRefs);
  row('vaultline run, 10 references', run);
  console.log(
    `  overhead                     ${ms(overhead)} ${ms(cpu(run) - cpu(direct))}  ratio ${(wall(run) / wall(direct)).toFixed(2)}x wall`,
  );
  const cpuOverhead = cpu(run) - cpu(direct);
  console.log(`  goal: overhead ≤ 100 ms (CPU): ${cpuOverhead <= 100 ? 'met' : 'NOT met'}`);
  console.log(
    `  HTTP requests per run        ${String(requests.length).padStart(7)}     ${requests.sort().join(', ')}`,
  );
  bench.record(
    [
      {
        figure: '`vaultline run` with 10 references, overhead vs the command alone',
        result: `${cpuOverhead.toFixed(0)} ms CPU, ${overhead.toFixed(0)} ms wall (${requests.length} requests: ${requests.join(', ')})`,
        goal: '≤ 100 ms CPU',
      },
    ],
    { rounds: ROUNDS },
  );
} finally {
  await vault.close();
  await rm(home, { recursive: true, force: true });
}
