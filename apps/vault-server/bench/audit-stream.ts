// pnpm bench:audit-stream: the audit stream's cost, with the built `vaultline-server start` on
// PGlite in its own process (seeded by seed-process.ts), reads made one at a time by this process:
// - the delay from a read's request to its event at a syslog receiver (RFC 5424 over TCP, in this
//   process), p50 and p99;
// - the requests' p50 and p99 with a sink that accepts connections and never reads, against the
//   same server with no sink, in alternating rounds (goal: no difference beyond noise).
// Recorded in docs/benchmarks/vault-server-audit-stream.json (BENCH_RECORD=0 to try without).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startHangingSink, startSyslogReceiver } from '@vaultline/audit-stream/testing';
import { startBenchmark } from '@vaultline/repo/benchmarks';
import { startVaultProcess } from './vault-process.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const DELAY_READS = QUICK ? 50 : 300;
const ROUNDS = QUICK ? 2 : 4;
const READS_PER_ROUND = QUICK ? 200 : 1_000;

const bench = startBenchmark({
  id: 'vault-server-audit-stream',
  package: '@vaultline/vault-server',
  script: 'bench/audit-stream.ts',
  command: 'pnpm --filter @vaultline/vault-server bench:audit-stream',
});

const dataDir = await mkdtemp(join(tmpdir(), 'vaultline-bench-audit-'));
const percentile = (values: readonly number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
const ms = (value: number) => `${value.toFixed(1)} ms`;

/** Seeds the vault (a key and three items), in a process of its own. */
async function seed(): Promise<{ key: string; readPath: string }> {
  const child = spawn(
    process.execPath,
    [join(import.meta.dirname, 'seed-process.ts'), 'pglite', dataDir, '0'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`seed-process.ts exited with ${code}`)));
  });
  await new Promise((resolve) => child.once('exit', resolve));
  return JSON.parse(line) as { key: string; readPath: string };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Runs `measure` against a server started with these sinks (none: the empty string). */
async function withServer<T>(sinks: string, measure: (url: string) => Promise<T>): Promise<T> {
  const { child, info } = await startVaultProcess('pglite', dataDir, {
    VAULTLINE_AUDIT_SINKS: sinks,
    VAULTLINE_LOG_LEVEL: 'error',
  });
  try {
    return await measure(String(info.url));
  } finally {
    await stop(child);
  }
}

const { key, readPath } = await seed();
const read = async (url: string) => {
  const response = await fetch(`${url}${readPath}`, { headers: { authorization: `Bearer ${key}` } });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`read answered ${response.status}`);
};

try {
  // A read's request to its event at the receiver, one read at a time (the n-th event is the n-th read's).
  const receiver = await startSyslogReceiver({ transport: 'tcp' });
  const delays = await withServer(receiver.url, async (url) => {
    const taken: number[] = [];
    for (let n = 0; n < DELAY_READS; n++) {
      const sent = performance.now();
      await read(url);
      const event = await receiver.waitFor((item) => receiver.received.indexOf(item) === n);
      taken.push(event.receivedAt - sent);
    }
    return taken;
  });
  await receiver.close();
  if (receiver.errors.length > 0) throw new Error(`the receiver could not parse: ${receiver.errors[0]}`);

  // Requests with a sink that hangs, and with none, round by round.
  const hanging = await startHangingSink();
  const latencies = { none: [] as number[], hanging: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of ['none', 'hanging'] as const) {
      await withServer(side === 'none' ? '' : hanging.httpUrl, async (url) => {
        for (let n = 0; n < 50; n++) await read(url);
        for (let n = 0; n < READS_PER_ROUND; n++) {
          const sent = performance.now();
          await read(url);
          latencies[side].push(performance.now() - sent);
        }
      });
    }
  }
  await hanging.close();

  const load = loadavg().map((n) => Math.round(n * 10) / 10);
  const figures = {
    delay: { p50: percentile(delays, 0.5), p99: percentile(delays, 0.99), reads: delays.length },
    none: { p50: percentile(latencies.none, 0.5), p99: percentile(latencies.none, 0.99) },
    hanging: { p50: percentile(latencies.hanging, 0.5), p99: percentile(latencies.hanging, 0.99) },
    loadAverage: load,
  };
  console.log(JSON.stringify(figures, null, 2));
  bench.record(
    [
      {
        figure: `a read's request to its event at a syslog receiver (TCP), ${delays.length} reads one at a time: p50 / p99`,
        result: `${ms(figures.delay.p50)} / ${ms(figures.delay.p99)}`,
      },
      {
        figure: `read/items with an HTTP sink that never answers vs with no sink, ${ROUNDS} alternating rounds of ${READS_PER_ROUND}: p50 / p99`,
        result: `${ms(figures.hanging.p50)} / ${ms(figures.hanging.p99)} vs ${ms(figures.none.p50)} / ${ms(figures.none.p99)} (p99 ${(figures.hanging.p99 / figures.none.p99).toFixed(2)}×)`,
        goal: 'no difference beyond noise',
      },
    ],
    { 'load average': load.join(' ') },
  );
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
