import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built executable: tests run the real `vaultline` from dist. */
export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** What a run of `vaultline` gave. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link runCli}. */
export interface CliOptions {
  /** Environment variables on top of a minimal one (PATH, HOME and XDG_CONFIG_HOME in a temp dir). */
  env?: Record<string, string | undefined>;
  /** Text for stdin; stdin is closed either way. */
  input?: string;
  /** Working directory. */
  cwd?: string;
  /** Called with the process once it started. */
  onSpawn?: (child: ChildProcess) => void;
  /** Kill it after this long (ms). Default 30 000. */
  timeoutMs?: number;
}

/** A run kept for a test file's final scan for leaked secrets; `allowed` are values it may print. */
export interface RecordedRun {
  args: readonly string[];
  result: CliResult;
  allowed: string[];
}

/**
 * A `vaultline` that runs in a test file's home with its environment (read at each run: both are
 * made in `beforeAll`), and keeps every run for the file's scan for leaked secrets.
 *
 * @param home The home directory.
 * @param env The environment every run gets, under the run's own.
 * @returns The runner, and the runs so far.
 */
export function recordingCli(
  home: () => string,
  env: () => Record<string, string>,
): {
  cli(args: readonly string[], options?: CliOptions & { allowed?: string[] }): Promise<CliResult>;
  runs: RecordedRun[];
} {
  const runs: RecordedRun[] = [];
  return {
    runs,
    async cli(args, options = {}) {
      const result = await runCli(home(), args, { ...options, env: { ...env(), ...options.env } });
      runs.push({ args, result, allowed: options.allowed ?? [] });
      return result;
    },
  };
}

/** A temporary home for one test file: config and HOME live there. */
export async function tempHome(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'vaultline-cli-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Runs `node dist/cli.js …` as a real process.
 *
 * @param home The temp home (config under `<home>/config`).
 * @param args The arguments.
 * @param options Environment, stdin.
 * @returns Exit code, signal, stdout and stderr.
 */
export function runCli(home: string, args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
  };
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, cwd: options.cwd ?? home, stdio: 'pipe' });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
    options.onSpawn?.(child);
    // A command that does not read stdin may exit before the write lands: EPIPE is expected then.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

/**
 * Fails when any secret appears in a result, except those allowed (asked for).
 *
 * @param result The result.
 * @param secrets The secrets.
 * @param allowed The secrets this command was asked to print.
 * @returns The leaked secrets (empty when none).
 */
export function leaks(
  result: CliResult,
  secrets: readonly string[],
  allowed: readonly string[] = [],
): string[] {
  const text = result.stdout + result.stderr;
  return secrets.filter((secret) => !allowed.includes(secret) && text.includes(secret));
}

/**
 * One exchange with a program on a terminal: when its output shows `when` (after the previous
 * step's), type `send`.
 */
export interface TerminalStep {
  /** Text the output must show first (a prompt). */
  when: string;
  /** What is typed then (a newline is `\r`, as a terminal sends it). */
  send: string;
}

/**
 * Runs `node dist/cli.js …` on a pseudo-terminal (script(1), as a person's shell would), typing
 * each step's text once its prompt appeared.
 *
 * @param home The temp home.
 * @param args The arguments.
 * @param steps The prompts and answers, in order.
 * @param options Environment.
 * @returns Exit code and everything the terminal showed (stdout and stderr together).
 */
export function runInTerminal(
  home: string,
  args: readonly string[],
  steps: readonly TerminalStep[],
  options: Pick<CliOptions, 'env' | 'timeoutMs'> = {},
): Promise<{ code: number | null; screen: string }> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    TERM: 'xterm-256color',
  };
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  const line = [process.execPath, CLI, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', line, '/dev/null'], { env, cwd: home, stdio: 'pipe' });
    let screen = '';
    let next = 0;
    // Each prompt is looked for after the previous one: a question asked again is a new step.
    let from = 0;
    const onOutput = (chunk: Buffer) => {
      screen += chunk.toString('utf8');
      const step = steps[next];
      const at = step ? screen.indexOf(step.when, from) : -1;
      if (step && at >= 0) {
        next++;
        from = at + step.when.length;
        child.stdin.write(step.send);
      }
    };
    child.stdout.on('data', onOutput);
    child.stderr.on('data', onOutput);
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, screen });
    });
  });
}
