// Cold start of the CLI, with plain `node bench/start.ts`: `vaultline --version` and `vaultline
// read` (one reference, against a real Vaultline server) against the named baseline "node": `node
// -e 0`, measured interleaved in the same run. The program should load only what a command needs,
// so a command's start-up is the ratio over Node's own.
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpu, ms, startCliBenchmark, type Timing, timed, wall } from './timing.ts';
import { startBenchVault } from './vault.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const bench = startCliBenchmark('cli-start', 'bench/start.ts');
const CLI = join(import.meta.dirname, '..', 'dist', 'cli.js');

const { vault, admin, folderId } = await startBenchVault();
const home = await mkdtemp(join(tmpdir(), 'vaultline-bench-'));
try {
  const { id } = await admin.items.create({ label: 'bench', password: 'Bench-Secret-Zq9', folderId });
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    VAULTLINE_URL: vault.url,
    VAULTLINE_API_KEY: vault.adminKey,
    VAULTLINE_LOGIN: 'bench',
  };
  const commands = {
    node: [process.execPath, '-e', '0'],
    version: [process.execPath, CLI, '--version'],
    read: [process.execPath, CLI, 'read', `vaultline://${id}/password`],
  };
  const times: Record<keyof typeof commands, Timing[]> = { node: [], version: [], read: [] };
  const names = Object.keys(commands) as (keyof typeof commands)[];
  // Warm up the file cache, the compile cache and the server.
  for (const name of names) await timed(commands[name][0]!, commands[name].slice(1), env);
  for (let round = 0; round < ROUNDS; round++)
    // Interleaved, so all three see the same machine load.
    for (const name of names) times[name].push(await timed(commands[name][0]!, commands[name].slice(1), env));

  const ratio = (name: keyof typeof commands) => wall(times[name]) / wall(times.node);
  console.log(`vaultline cold start, ${ROUNDS} rounds, medians:`);
  console.log(`  machine: ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)}`);
  console.log('                                    wall        cpu');
  const row = (label: string, name: keyof typeof commands) =>
    console.log(
      `  ${label.padEnd(28)} ${ms(wall(times[name]))} ${ms(cpu(times[name]))}${name === 'node' ? '' : `  ratio ${ratio(name).toFixed(2)}x wall`}`,
    );
  row('node -e 0 (baseline)', 'node');
  row('vaultline --version', 'version');
  row('vaultline read, 1 reference', 'read');
  const result = (name: keyof typeof commands) =>
    `${ratio(name).toFixed(2)}× (${wall(times[name]).toFixed(0)} ms wall, ${cpu(times[name]).toFixed(0)} ms CPU; \`node -e 0\`: ${wall(times.node).toFixed(0)} ms wall, ${cpu(times.node).toFixed(0)} ms CPU)`;
  bench.record(
    [
      { figure: '`vaultline --version` cold start vs `node -e 0`', result: result('version') },
      {
        figure: '`vaultline read` of one reference (a real Vaultline server) cold start vs `node -e 0`',
        result: result('read'),
      },
    ],
    { rounds: ROUNDS },
  );
} finally {
  await vault.close();
  await rm(home, { recursive: true, force: true });
}
