// What both benches of `vaultline run` share: timing a command under bash (wall and CPU time) and
// the medians.
import { spawn } from 'node:child_process';
import { type BenchmarkRun, startBenchmark } from '@vaultline/repo/benchmarks';

/** Starts one of this package's benches, run by `pnpm --filter @vaultline/cli bench`. */
export const startCliBenchmark = (id: string, script: string): BenchmarkRun =>
  startBenchmark({ id, package: '@vaultline/cli', script, command: 'pnpm --filter @vaultline/cli bench' });

/** One timed run. */
export interface Timing {
  /** Wall time, ms. */
  wall: number;
  /** CPU time (user + system) of the command and its children, ms: steadier than wall time on a loaded machine. */
  cpu: number;
}

/** The median of some values. */
export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** A time, right-aligned for the tables. */
export const ms = (value: number): string => `${value.toFixed(1).padStart(7)} ms`;

/** The median wall time of some runs. */
export const wall = (timings: Timing[]): number => median(timings.map((t) => t.wall));

/** The median CPU time of some runs. */
export const cpu = (timings: Timing[]): number => median(timings.map((t) => t.cpu));

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** Runs a command under bash, whose `times` gives the CPU time its children used. */
export function timed(command: string, args: string[], env: Record<string, string>): Promise<Timing> {
  const script = `${[command, ...args].map(quote).join(' ')} >/dev/null || exit $?; times`;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const elapsed = performance.now() - started;
      if (code !== 0) return reject(new Error(`${command} ${args[0]} exited with ${code}`));
      // `times` prints the shell's own times, then its children's: "0m0.081s 0m0.012s".
      const children = out.trim().split('\n').at(-1) ?? '';
      const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
      resolve({ wall: elapsed, cpu: (seconds.reduce((a, b) => a + b, 0) || Number.NaN) * 1000 });
    });
  });
}
