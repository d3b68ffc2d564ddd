// Cold start of the CLI, with plain `node bench/start.ts`: `vaultline --version` and `vaultline
// read` (one reference, against a real Vaultline server) against the named baseline "node": `node
// -e 0`, and beside the same commands of the last release (tooling/repo/last-release.json, built
// once in the OS temp dir), all measured interleaved in the same run. The program should load
// only what a command needs, so a command's start-up is its CPU time over Node's own.
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildLastRelease } from '@vaultline/repo/release';
import { cpu, ms, startCliBenchmark, type Timing, timed, wall } from './timing.ts';
import { startBenchVault } from './vault.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const bench = startCliBenchmark('cli-start', 'bench/start.ts');
const CLI = join(import.meta.dirname, '..', 'dist', 'cli.js');
const release = buildLastRelease(['@vaultline/cli']);
const RELEASE_CLI = join(release.dir, 'apps', 'cli', 'dist', 'cli.js');

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
    releaseVersion: [process.execPath, RELEASE_CLI, '--version'],
    releaseRead: [process.execPath, RELEASE_CLI, 'read', `vaultline://${id}/password`],
  };
  type Name = keyof typeof commands;
  const times = Object.fromEntries(Object.keys(commands).map((name) => [name, []])) as unknown as Record<
    Name,
    Timing[]
  >;
  const names = Object.keys(commands) as (keyof typeof commands)[];
  // Warm up the file cache, the compile cache and the server.
  for (const name of names) await timed(commands[name][0]!, commands[name].slice(1), env);
  for (let round = 0; round < ROUNDS; round++)
    // Interleaved, so all of them see the same machine load.
    for (const name of names) times[name].push(await timed(commands[name][0]!, commands[name].slice(1), env));

  const ratio = (name: Name, to: Name = 'node') => cpu(times[name]) / cpu(times[to]);
  console.log(`vaultline cold start, ${ROUNDS} rounds, medians:`);
  console.log(`  machine: ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)}`);
  console.log('                                    wall        cpu');
  const row = (label: string, name: Name) =>
    console.log(
      `  ${label.padEnd(28)} ${ms(wall(times[name]))} ${ms(cpu(times[name]))}${name === 'node' ? '' : `  ratio ${ratio(name).toFixed(2)}x CPU`}`,
    );
  row('node -e 0 (baseline)', 'node');
  row('vaultline --version', 'version');
  row(`${release.name} --version`, 'releaseVersion');
  row('vaultline read, 1 reference', 'read');
  row(`${release.name} read, 1 reference`, 'releaseRead');
  const result = (name: Name, releaseName: Name) =>
    `${ratio(name).toFixed(2)}× in CPU (${cpu(times[name]).toFixed(0)} ms CPU, ${wall(times[name]).toFixed(0)} ms wall; \`node -e 0\`: ${cpu(times.node).toFixed(0)} ms CPU, ${wall(times.node).toFixed(0)} ms wall); the last release ${ratio(releaseName).toFixed(2)}×, this code / the release ${ratio(name, releaseName).toFixed(2)}`;
  bench.record(
    [
      {
        figure: '`vaultline --version` cold start vs `node -e 0`',
        result: result('version', 'releaseVersion'),
        goal: '≤ 1.3×',
      },
      {
        figure: '`vaultline read` of one reference (a real Vaultline server) cold start vs `node -e 0`',
        result: result('read', 'releaseRead'),
        goal: '≤ 3×',
      },
    ],
    { rounds: ROUNDS },
    release,
  );
} finally {
  await vault.close();
  await rm(home, { recursive: true, force: true });
}
