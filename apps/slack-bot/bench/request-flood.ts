// Memory under a flood of unsigned bodies (#13 §6), run with `node bench/request-flood.ts`:
// 200 concurrent 1 MB (and 200 KB) unsigned POSTs to /slack/events, the process's resident memory
// (VmRSS) read from /proc before, during (the highest sample) and after, for the named baseline "Bolt's
// HTTPReceiver" (reads every body in full before answering 401) and for the bot (checks size,
// timestamp and signature before reading).
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBenchmark } from '@vaultline/repo/benchmarks';
import { BOT_TOKEN, SIGNING_SECRET } from '../test/support/bot.ts';

const here = import.meta.dirname;
const CONCURRENT = 200;
const bench = startBenchmark({
  id: 'slack-bot-request-flood',
  package: '@vaultline/slack-bot',
  script: 'bench/request-flood.ts',
  command: 'pnpm --filter @vaultline/slack-bot exec node bench/request-flood.ts',
});
const children: ChildProcess[] = [];

async function memory(pid: number): Promise<{ rss: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return { rss: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024 };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function post(port: number, size: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path: '/slack/events',
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(size) },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.end(Buffer.alloc(size, 'x'));
  });
}

async function flood(
  name: string,
  pid: number,
  port: number,
  size: number,
): Promise<{ growth: number; answers: string }> {
  const before = await memory(pid);
  let highest = before.rss;
  const sampler = setInterval(() => {
    memory(pid).then(
      (now) => {
        highest = Math.max(highest, now.rss);
      },
      () => undefined,
    );
  }, 5);
  const started = performance.now();
  const statuses = await Promise.all(Array.from({ length: CONCURRENT }, () => post(port, size)));
  const ms = performance.now() - started;
  clearInterval(sampler);
  const after = await memory(pid);
  highest = Math.max(highest, after.rss);
  const counts = new Map<number, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  const answers = [...counts].map(([s, n]) => `${n}×${s}`).join(' ');
  console.log(
    `  ${name.padEnd(34)} ${String(size / 1024).padStart(5)} KiB × ${CONCURRENT}: RSS ${before.rss.toFixed(0)} → highest ${highest.toFixed(0)} → ${after.rss.toFixed(0)} MiB (+${(highest - before.rss).toFixed(0)}), ${ms.toFixed(0)} ms, answers ${answers}`,
  );
  return { growth: highest - before.rss, answers };
}

try {
  const baseline = fork(join(here, 'baseline-app.ts'), [], {
    env: {
      ...process.env,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_API_URL: 'http://127.0.0.1:9/api/',
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(baseline);
  const { port: basePort } = await new Promise<{ port: number }>((resolve) =>
    baseline.once('message', (m) => resolve(m as { port: number })),
  );

  const dir = await mkdtemp(join(tmpdir(), 'slack-bot-flood-'));
  await writeFile(join(dir, 'map.csv'), 'UALICE,alice\n');
  const botPort = await freePort();
  const bot = fork(join(here, '../src/main.ts'), [], {
    env: {
      ...process.env,
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: 'http://127.0.0.1:9/api/',
      // No Slack here to ask which workspace installed the bot.
      SLACK_TEAM_IDS: 'T1',
      PORT: String(botPort),
      HOST: '127.0.0.1',
      VAULT_URL: 'http://127.0.0.1:9',
      VAULT_API_KEY: 'flood-bench-key',
      IDENTITY_MAP_FILE: join(dir, 'map.csv'),
      BOT_DATA_DIR: join(dir, 'store'),
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  children.push(bot);
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${botPort}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  console.log(`Unsigned bodies, ${CONCURRENT} at once (lower is better)`);
  const base = await flood('baseline "Bolt\'s HTTPReceiver"', baseline.pid ?? 0, basePort, 1024 * 1024);
  const ours = await flood('bot (checks before reading)', bot.pid ?? 0, botPort, 1024 * 1024);
  await flood('bot (checks before reading)', bot.pid ?? 0, botPort, 200 * 1024);
  const [botGrowth, baseGrowth] = [ours.growth, base.growth];
  console.log(
    `  growth of resident memory, bot / baseline: ${(botGrowth / Math.max(1, baseGrowth)).toFixed(2)}× (${botGrowth.toFixed(0)} vs ${baseGrowth.toFixed(0)} MiB)`,
  );
  bench.record([
    {
      figure: `${CONCURRENT} concurrent unsigned 1 MB bodies`,
      result: `+${botGrowth.toFixed(0)} MiB RSS, answers ${ours.answers} (bare Bolt: +${baseGrowth.toFixed(0)} MiB, answers ${base.answers})`,
    },
  ]);
} finally {
  for (const child of children) child.kill();
}
process.exit(0);
