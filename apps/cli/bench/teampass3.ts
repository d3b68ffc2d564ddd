// Benchmark of `vaultline run` against TeamPass 3 (the fake of @vaultline/protocol/testing, over
// HTTP), with plain `node bench/teampass3.ts`. The named baseline is "direct": the same command
// started directly, measured in the same run, interleaved. Figures: the overhead of `vaultline run`
// with 10 references (5 by id, 5 by path) with the session token cached (goal < 150 ms, 0
// sign-ins), cold (no cached token: the sign-in included), from the environment alone (CI: no
// config file), and the sign-ins per token lifetime over a series of commands (goal 1).
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTeamPass3Fake } from '@vaultline/protocol/testing';
import { startBenchmark } from '@vaultline/repo/benchmarks';
import { cpu, ms, type Timing, timed, wall } from './timing.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
/** Commands per token lifetime in the sign-in series. */
const SERIES = Number(process.env.BENCH_SERIES ?? 20);
const bench = startBenchmark({
  id: 'cli-teampass3',
  package: '@vaultline/cli',
  script: 'bench/teampass3.ts',
  command: 'pnpm --filter @vaultline/cli bench',
});
const CLI = join(import.meta.dirname, '..', 'dist', 'cli.js');
const CHILD = [process.execPath, '-e', 'if (!process.env.REF_9) process.exit(3)'];
const USER = { login: 'bench', password: 'Bench-Pw-Zq9!x', apiKey: 'benchApiKey0123456789abcdefghijklmnopq' };

const fake = await startTeamPass3Fake({
  seed: {
    folders: [{ title: 'Bench' }],
    roles: [{ name: 'Bench', folders: { Bench: 'R' } }],
    users: [{ ...USER, roles: ['Bench'] }],
    items: Array.from({ length: 10 }, (_, i) => ({
      id: i + 1,
      label: `bench ${i}`,
      folder: 'Bench',
      password: `Bench-Secret-${i}-Zq9`,
    })),
  },
  maxRequestLog: 100_000,
});
const home = await mkdtemp(join(tmpdir(), 'vaultline-bench-tp3-'));
try {
  const refs: Record<string, string> = {};
  for (let i = 0; i < 10; i++)
    refs[`REF_${i}`] =
      i % 2 === 0 ? `vaultline://${i + 1}/password` : `vaultline://Bench/bench%20${i}/password`;
  const cacheDir = join(home, 'cache');
  const base = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    VAULTLINE_CACHE_DIR: cacheDir,
  };
  const credentials = { VAULTLINE_PASSWORD: USER.password, VAULTLINE_API_KEY: USER.apiKey };
  const plain = { ...base, ...refs };
  // A developer without a keychain (or CI with a connect step): the stored connection, the
  // credentials from the environment, the token in a sealed file.
  const connected = { ...base, ...credentials, ...refs };
  // CI without a connect step: everything from the environment, no config file.
  const ciCache = join(home, 'ci-cache');
  const ci = {
    ...connected,
    XDG_CONFIG_HOME: join(home, 'ci-config'),
    VAULTLINE_CACHE_DIR: ciCache,
    VAULTLINE_URL: fake.url,
    VAULTLINE_LOGIN: USER.login,
  };
  const clearTokens = async (dir: string) => {
    for (const name of await readdir(dir).catch(() => [] as string[]))
      await rm(join(dir, name), { force: true });
  };
  const runCommand = (env: Record<string, string>) =>
    timed(process.execPath, [CLI, 'run', '--', ...CHILD], env);

  await timed(process.execPath, [CLI, 'connect', fake.url, '--login', USER.login], {
    ...base,
    ...credentials,
  });

  // Warm up the file cache, the server and the CI token.
  await runCommand(connected);
  await runCommand(ci);
  await timed(CHILD[0]!, CHILD.slice(1), plain);

  /** The requests and sign-ins one piece of work caused. */
  const observe = async (work: () => Promise<unknown>) => {
    const before = fake.requests.length;
    const signIns = fake.signIns(USER.login);
    await work();
    const requests = fake.requests
      .slice(before)
      .map((request) => request.url.replace(/^\/api\/index\.php\//, '').replace(/\?.*$/, ''));
    return { requests, signIns: fake.signIns(USER.login) - signIns };
  };
  const summary = (requests: string[]) => {
    const counts = new Map<string, number>();
    for (const request of requests) counts.set(request, (counts.get(request) ?? 0) + 1);
    return [...counts].map(([name, count]) => (count === 1 ? name : `${name} ×${count}`)).join(', ');
  };
  const warm = await observe(() => runCommand(connected));
  const warmCi = await observe(() => runCommand(ci));
  await clearTokens(cacheDir);
  const cold = await observe(() => runCommand(connected));

  const direct: Timing[] = [];
  const cached: Timing[] = [];
  const coldRuns: Timing[] = [];
  const ciRuns: Timing[] = [];
  let cachedSignIns = 0;
  let ciSignIns = 0;
  for (let round = 0; round < ROUNDS; round++) {
    // Interleaved, so that all of them see the same machine load.
    direct.push(await timed(CHILD[0]!, CHILD.slice(1), plain));
    const signIns = fake.signIns(USER.login);
    cached.push(await runCommand(connected));
    const between = fake.signIns(USER.login);
    ciRuns.push(await runCommand(ci));
    cachedSignIns += between - signIns;
    ciSignIns += fake.signIns(USER.login) - between;
    await clearTokens(cacheDir);
    coldRuns.push(await runCommand(connected));
  }

  // Sign-ins per token lifetime: a series of commands on one token, then the token expires on
  // the server (its clock moves past `exp`) and another series runs on the next one.
  await clearTokens(cacheDir);
  const lifetimes: number[] = [];
  for (let lifetime = 0; lifetime < 2; lifetime++) {
    const series = await observe(async () => {
      for (let i = 0; i < SERIES; i++) {
        if (i % 2 === 0) await runCommand(connected);
        else await timed(process.execPath, [CLI, 'read', 'vaultline://1/password'], connected);
      }
    });
    lifetimes.push(series.signIns);
    fake.clock.advance(61 * 60_000);
  }

  const overhead = (timings: Timing[]) => wall(timings) - wall(direct);
  const cpuOverhead = (timings: Timing[]) => cpu(timings) - cpu(direct);
  console.log(
    `vaultline run against TeamPass 3 (the fake), 10 references (5 by id, 5 by path), ${ROUNDS} rounds, medians:`,
  );
  console.log(`  machine: ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)}`);
  console.log('                                          wall        cpu   overhead (wall)');
  const row = (name: string, timings: Timing[]) =>
    console.log(
      `  ${name.padEnd(38)} ${ms(wall(timings))} ${ms(cpu(timings))}${timings === direct ? '' : ` ${ms(overhead(timings))}`}`,
    );
  row('direct (baseline)', direct);
  row('vaultline run, token cached', cached);
  row('vaultline run, from the environment', ciRuns);
  row('vaultline run, cold (sign-in included)', coldRuns);
  const goalMet = overhead(cached) < 150 && cachedSignIns === 0 && ciSignIns === 0;
  console.log(`  goal: overhead < 150 ms and 0 sign-ins, token cached: ${goalMet ? 'met' : 'NOT met'}`);
  console.log(
    `  sign-ins over ${ROUNDS} runs each: token cached ${cachedSignIns}, from the environment ${ciSignIns}`,
  );
  console.log(`  requests, token cached:        ${warm.requests.length} (${summary(warm.requests)})`);
  console.log(`  requests, from the environment: ${warmCi.requests.length} (${summary(warmCi.requests)})`);
  console.log(`  requests, cold:                ${cold.requests.length} (${summary(cold.requests)})`);
  console.log(
    `  sign-ins per token lifetime over ${SERIES} commands (run and read): ${lifetimes.join(', ')} (goal 1 each)`,
  );

  const result = (timings: Timing[]) =>
    `${overhead(timings).toFixed(0)} ms wall, ${cpuOverhead(timings).toFixed(0)} ms CPU`;
  bench.record(
    [
      {
        figure:
          '`vaultline run` with 10 references against TeamPass 3, session token cached: overhead vs the command alone, and sign-ins',
        result: `${result(cached)}; ${cachedSignIns} sign-ins in ${ROUNDS} runs (${warm.requests.length} requests: ${summary(warm.requests)})`,
        goal: '< 150 ms, 0 sign-ins',
      },
      {
        figure:
          'the same from the environment alone (CI, no config file: the dialect comes from the token file)',
        result: `${result(ciRuns)}; ${ciSignIns} sign-ins in ${ROUNDS} runs (${warmCi.requests.length} requests: ${summary(warmCi.requests)})`,
        goal: '< 150 ms, 0 sign-ins',
      },
      {
        figure: 'the same, cold: no cached token, the sign-in included',
        result: `${result(coldRuns)} (${cold.requests.length} requests: ${summary(cold.requests)})`,
      },
      {
        figure: `sign-ins per token lifetime, over a series of ${SERIES} commands (\`run\` and \`read\`) per lifetime`,
        result: `${lifetimes.join(', ')} (two lifetimes; the token expired on the server between them)`,
        goal: '1',
      },
    ],
    { rounds: ROUNDS, series: SERIES },
  );
} finally {
  await fake.close();
  await rm(home, { recursive: true, force: true });
}
