// pnpm bench:upstream-faults: the server in upstream mode (the built `vaultline-server start`, its
// own process, on PGlite, defaults: cache off, 8 s deadline, 100 calls/min per account) in front of
// the TeamPass 3 fake (in this process) while TeamPass has a bad day. One fresh server and fake per
// figure (an account's holds outlive a figure). Figures of issue 36:
// - sign-ins reaching TeamPass for 40 requests after it refuses the account (goal ≤ 3);
// - calls reaching it during a 30 s Retry-After for 40 requests (goal ≤ 2);
// - upstream calls for 20 identical concurrent reads, cache off (goal ≤ 2);
// - the slowest answer of 20 callers while TeamPass hangs (goal: every one 503 within 12 s);
// - calls for one read/items of 1,000 ids under a one-folder scope;
// - 50 concurrent runs of 10 references (a fresh client each, as `vaultline run`: the CLI's
//   retries and 10 s timeout), TeamPass limiting at its default 120/min: failures and item reads;
//   then with an all-folders key and the cache on for 5 s.
// Recorded in docs/benchmarks/vault-server-upstream-faults.json (BENCH_RECORD=0 to try without).
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { VaultError } from '@vaultline/protocol';
import {
  startTeamPass3Fake,
  type TeamPass3Fake,
  type TeamPass3FakeOptions,
} from '@vaultline/protocol/testing';
import { createWireClient } from '@vaultline/protocol/wire';
import { startBenchmark } from '@vaultline/repo/benchmarks';
import { faultsSeed, IN_FOLDER } from '../test/support/faults-seed.ts';
import { cli, startVaultProcess } from './vault-process.ts';

const ALICE = {
  login: 'alice',
  password: 'Bench-Faults-Pw-1!',
  apiKey: 'benchFaultsApiKey0123456789abcdefghijkl',
};
const RUNS = 50;
const REFERENCES = 10;
const seed = faultsSeed(ALICE, 'Bench-Faults');

interface Served {
  readonly fake: TeamPass3Fake;
  readonly url: string;
  /** A key of every folder, and one of folder 1 alone. */
  readonly keys: { all: string; folder: string };
}

/** A fresh fake and server for one figure. */
async function phase<T>(
  fakeOptions: Omit<TeamPass3FakeOptions, 'seed'>,
  measure: (served: Served) => Promise<T>,
  serverEnv: Record<string, string> = {},
): Promise<T> {
  const fake = await startTeamPass3Fake({ ...fakeOptions, seed });
  const dataDir = await mkdtemp(join(tmpdir(), 'vaultline-bench-faults-'));
  const env = {
    VAULTLINE_DATA_DIR: dataDir,
    VAULTLINE_UPSTREAM_URL: fake.url,
    VAULTLINE_LOG_LEVEL: 'error',
    ...serverEnv,
  };
  try {
    await cli(
      ['upstream', 'add', '--name', 'ci', '--login', ALICE.login],
      env,
      `${ALICE.password}\n${ALICE.apiKey}\n`,
    );
    const key = async (scope: string[]) =>
      (
        JSON.parse(
          await cli(
            ['keys', 'create', '--label', scope.join('-'), '--upstream-account', 'ci', ...scope, '--json'],
            env,
          ),
        ) as { key: string }
      ).key;
    const keys = { all: await key(['--all-folders']), folder: await key(['--folder', '1']) };
    const server = await startVaultProcess('pglite', dataDir, env);
    try {
      return await measure({ fake, url: String(server.info.url), keys });
    } finally {
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      await exited;
    }
  } finally {
    fake.recover();
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Clients that have identified the server already: what they send next arrives together. */
async function identified(count: number, make: () => ReturnType<typeof createWireClient>) {
  const clients = Array.from({ length: count }, make);
  await Promise.all(clients.map((client) => client.capabilities()));
  return clients;
}

/** A client as a fresh `vaultline run` makes one: the CLI's retries and 10 s timeout. */
const runClient = (url: string, key: string) =>
  createWireClient({ baseUrl: url, auth: key, timeoutMs: 10_000 });
/** A client that reports the server's own answer: no retries, time to wait for it. */
const plainClient = (url: string, key: string) =>
  createWireClient({ baseUrl: url, auth: key, retry: { retries: 0 }, timeoutMs: 60_000 });

const signInsSent = (fake: TeamPass3Fake) =>
  fake.requests.filter((request) => request.method === 'POST' && request.url.includes('/authorize')).length;
const itemCalls = (fake: TeamPass3Fake) =>
  fake.requests.filter((request) => request.url.includes('/item/')).length;
const statusOf = (error: unknown) => (error instanceof VaultError ? (error.status ?? error.code) : 'error');

const bench = startBenchmark({
  id: 'vault-server-upstream-faults',
  package: '@vaultline/vault-server',
  script: 'bench/upstream-faults.ts',
  command: 'pnpm --filter @vaultline/vault-server bench:upstream-faults',
});
const figures: Record<string, unknown> = {};

figures.refusedSignIns = await phase({}, async ({ fake, url, keys }) => {
  await plainClient(url, keys.all).readItems({ ids: [1] });
  fake.updateUser('alice', { password: 'Changed-Under-The-Server-1' });
  fake.revokeSessions('alice');
  fake.resetCounters();
  const outcomes = await Promise.allSettled(
    Array.from({ length: 40 }, (_, i) => runClient(url, keys.all).readItems({ ids: [i + 1] })),
  );
  return {
    requests: 40,
    signIns: signInsSent(fake),
    failed: outcomes.filter((o) => o.status === 'rejected').length,
  };
});

figures.retryAfterCalls = await phase(
  // TeamPass's minute window 30 s in, 3 calls a minute: the 4th call is answered 429, Retry-After 30.
  { now: Math.floor(Date.now() / 60_000) * 60_000 + 30_000, settings: { rateLimitPerMinute: 3 } },
  async ({ fake, url, keys }) => {
    for (let id = 1; id <= 10; id++) {
      try {
        await plainClient(url, keys.all).readItems({ ids: [id] });
      } catch {
        break;
      }
    }
    const retryAfter = fake.requests.find((request) => request.status === 429) ? 30 : 0;
    fake.resetCounters();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) => runClient(url, keys.all).readItems({ ids: [i + 20] })),
    );
    return {
      requests: 40,
      retryAfterSeconds: retryAfter,
      callsToTeamPass: fake.requests.length,
      answered503: outcomes.filter((o) => o.status === 'rejected' && statusOf(o.reason) === 503).length,
    };
  },
);

figures.identicalReads = await phase({}, async ({ fake, url, keys }) => {
  await plainClient(url, keys.all).readItems({ ids: [1] });
  const clients = await identified(20, () => plainClient(url, keys.all));
  fake.resetCounters();
  await Promise.all(clients.map((client) => client.readItems({ ids: [7] })));
  return { reads: 20, upstreamCalls: itemCalls(fake) };
});

figures.hang = await phase({}, async ({ fake, url, keys }) => {
  await plainClient(url, keys.all).readItems({ ids: [1] });
  const clients = await identified(20, () => plainClient(url, keys.all));
  fake.hang();
  const started = performance.now();
  const answers = await Promise.all(
    clients.map(async (client, i) => {
      try {
        await client.readItems({ ids: [i + 100] });
        return { status: 200, ms: performance.now() - started };
      } catch (error) {
        return { status: statusOf(error), ms: performance.now() - started };
      }
    }),
  );
  const after = performance.now();
  let next: number | string = 200;
  try {
    await plainClient(url, keys.all).readItems({ ids: [1] });
  } catch (error) {
    next = statusOf(error);
  }
  return {
    callers: 20,
    statuses: [...new Set(answers.map((a) => a.status))],
    slowestMs: Math.round(Math.max(...answers.map((a) => a.ms))),
    heldAtTeamPass: fake.held(),
    nextCaller: { status: next, ms: Math.round(performance.now() - after) },
  };
});

figures.scopedRead = await phase({}, async ({ fake, url, keys }) => {
  await plainClient(url, keys.folder).readItems({ ids: [1] });
  fake.resetCounters();
  const ids = [...Array.from({ length: IN_FOLDER - 1 }, (_, i) => i + 1), IN_FOLDER + 1];
  const found = await plainClient(url, keys.folder).readItems({ ids });
  return { ids: ids.length, found: found.length, upstreamCalls: itemCalls(fake) };
});

/** 50 concurrent runs of 10 references with a key of every folder, then one of folder 1 alone. */
async function runs(scope: keyof Served['keys'], serverEnv: Record<string, string> = {}) {
  return phase(
    { settings: { rateLimitPerMinute: 120 } },
    async ({ fake, url, keys }) => {
      // TeamPass's clock follows the real one, so that its minute windows pass.
      const ticking = setInterval(() => fake.clock.set(Date.now()), 100);
      try {
        fake.resetCounters();
        const ids = Array.from({ length: REFERENCES }, (_, i) => i + 1);
        const started = performance.now();
        const outcomes = await Promise.allSettled(
          Array.from({ length: RUNS }, async () => {
            const items = await runClient(url, keys[scope]).readItems({ ids });
            if (items.length !== REFERENCES) throw new Error(`a run read ${items.length} items`);
          }),
        );
        return {
          runs: RUNS,
          referencesPerRun: REFERENCES,
          failures: outcomes.filter((o) => o.status === 'rejected').length,
          itemReads: itemCalls(fake),
          refusedByTeamPass: fake.requests.filter((request) => request.status === 429).length,
          seconds: Math.round((performance.now() - started) / 100) / 10,
        };
      } finally {
        clearInterval(ticking);
      }
    },
    serverEnv,
  );
}
figures.runs = await runs('all');
figures.runsScoped = await runs('folder');
// The same fleet with the cache on for 5 s: what a fleet larger than TeamPass's minute needs.
figures.runsCached = await runs('all', { VAULTLINE_UPSTREAM_CACHE_TTL_MS: '5000' });

interface RunFigures {
  failures: number;
  itemReads: number;
  refusedByTeamPass: number;
  seconds: number;
}
const load = loadavg().map((n) => Math.round(n * 10) / 10);
console.log(JSON.stringify({ ...figures, loadAverage: load }, null, 2));
const f = figures as {
  refusedSignIns: { signIns: number; failed: number };
  retryAfterCalls: { callsToTeamPass: number; answered503: number; retryAfterSeconds: number };
  identicalReads: { upstreamCalls: number };
  hang: {
    slowestMs: number;
    statuses: unknown[];
    heldAtTeamPass: number;
    nextCaller: { status: unknown; ms: number };
  };
  scopedRead: { ids: number; found: number; upstreamCalls: number };
  runs: RunFigures;
  runsScoped: RunFigures;
  runsCached: RunFigures;
};
const ranAs = (run: RunFigures) =>
  `${run.failures} failures, ${run.itemReads} TeamPass item calls, ${run.refusedByTeamPass} refused by TeamPass, ${run.seconds} s`;
bench.record(
  [
    {
      figure: 'sign-ins reaching TeamPass for 40 requests after it refuses the account',
      result: `${f.refusedSignIns.signIns} (${f.refusedSignIns.failed} of 40 answered 502)`,
      goal: '≤ 3',
    },
    {
      figure: `calls reaching TeamPass during a ${f.retryAfterCalls.retryAfterSeconds} s Retry-After, for 40 requests`,
      result: `${f.retryAfterCalls.callsToTeamPass} (${f.retryAfterCalls.answered503} of 40 answered 503)`,
      goal: '≤ 2',
    },
    {
      figure: 'upstream calls for 20 identical concurrent reads, cache off',
      result: String(f.identicalReads.upstreamCalls),
      goal: '≤ 2',
    },
    {
      figure: '20 callers while TeamPass hangs: the slowest answer; the next caller',
      result: `${f.hang.slowestMs} ms, statuses ${f.hang.statuses.join(', ')}, ${f.hang.heldAtTeamPass} calls held at TeamPass; next: ${f.hang.nextCaller.status} in ${f.hang.nextCaller.ms} ms`,
      goal: 'every one 503 within 12 s',
    },
    {
      figure: `calls for one read/items of ${f.scopedRead.ids} ids with a one-folder scope`,
      result: `${f.scopedRead.upstreamCalls} (${f.scopedRead.found} items answered)`,
    },
    {
      figure: `${RUNS} concurrent runs of ${REFERENCES} references, cache off, TeamPass at 120/min: an all-folders key / a one-folder key`,
      result: `${ranAs(f.runs)} / ${ranAs(f.runsScoped)}`,
      goal: '0 failures',
    },
    {
      figure: `the same ${RUNS} runs with an all-folders key and the cache on for 5 s`,
      result: ranAs(f.runsCached),
    },
  ],
  { 'load average': load.join(' ') },
);
