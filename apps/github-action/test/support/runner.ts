/**
 * Runs the bundled Action as a GitHub runner would: `node dist/index.mjs` with its inputs as
 * `INPUT_<NAME>` variables, the step's `env`, and real `GITHUB_ENV`/`GITHUB_OUTPUT` files; then
 * reads its standard output as workflow commands and the files as the runner parses them.
 *
 * @module
 */

import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The bundle `action.yml` runs. */
export const ACTION = fileURLToPath(new URL('../../dist/index.mjs', import.meta.url));

/** The runner's platform: its file command parser and Node's line end (`os.EOL`) follow it. */
export type RunnerPlatform = 'linux' | 'windows';

/**
 * Preloaded into the Action run "as on Windows": Node's `os.EOL` there, which `@actions/core`
 * writes the file commands with.
 */
const WINDOWS_EOL = `data:text/javascript,${encodeURIComponent(
  "import os from 'node:os'; import { syncBuiltinESMExports } from 'node:module'; Object.defineProperty(os, 'EOL', { value: '\\r\\n' }); syncBuiltinESMExports();",
)}`;

/** One line of the Action's standard output. */
export interface OutputLine {
  /** The line as printed. */
  readonly raw: string;
  /** The workflow command (`add-mask`, `warning`, `error`, …), when it is one. */
  readonly command: string | undefined;
  /** The command's data, unescaped as the runner does (`%25`, `%0D`, `%0A`); the line otherwise. */
  readonly data: string;
}

/** What a run of the Action gave. */
export interface ActionRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Standard output, line by line. */
  readonly lines: readonly OutputLine[];
  /** The values the mask commands registered, in order. */
  readonly masks: readonly string[];
  /** `GITHUB_ENV` as the runner reads it. */
  readonly env: Record<string, string>;
  /** `GITHUB_OUTPUT` as the runner reads it. */
  readonly outputs: Record<string, string>;
  /** The raw `GITHUB_ENV` file. */
  readonly envFile: string;
}

/** The runner's unescaping of a command's data. */
export function unescapeData(text: string): string {
  return text.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');
}

/**
 * Parses a file command file (`GITHUB_ENV`, `GITHUB_OUTPUT`) as the runner does
 * (`FileCommandManager.cs`): `NAME=VALUE` lines, and `NAME<<DELIMITER` blocks whose value is the
 * text up to the line end before the first line that equals the delimiter; a missing delimiter is
 * an error. A line ends at `\n`, and on Windows at `\r\n` too (its `OS_WINDOWS` build).
 *
 * @param text The file.
 * @param platform The runner's platform: `linux` (and macOS) or `windows`.
 * @returns The pairs; later ones win.
 */
export function parseFileCommands(text: string, platform: RunnerPlatform = 'linux'): Record<string, string> {
  const pairs: Record<string, string> = {};
  let index = 0;
  const readLine = (): { line: string; newline: string } | undefined => {
    if (index >= text.length) return undefined;
    const start = index;
    const lf = text.indexOf('\n', index);
    if (lf < 0) {
      index = text.length;
      return { line: text.slice(start), newline: '' };
    }
    const crlf = platform === 'windows' ? text.indexOf('\r\n', index) : -1;
    if (crlf >= 0 && crlf < lf) {
      index = crlf + 2;
      return { line: text.slice(start, crlf), newline: '\r\n' };
    }
    index = lf + 1;
    return { line: text.slice(start, lf), newline: '\n' };
  };
  for (let read = readLine(); read !== undefined; read = readLine()) {
    const { line } = read;
    if (line === '') continue;
    const equals = line.indexOf('=');
    const heredoc = line.indexOf('<<');
    if (equals >= 0 && (heredoc < 0 || equals < heredoc)) {
      pairs[line.slice(0, equals)] = line.slice(equals + 1);
      continue;
    }
    if (heredoc < 0) throw new Error(`Invalid format '${line}'`);
    const name = line.slice(0, heredoc);
    const delimiter = line.slice(heredoc + 2);
    if (name === '' || delimiter === '') throw new Error(`Invalid format '${line}'`);
    const start = index;
    let end = index;
    for (let next = readLine(); next?.line !== delimiter; next = readLine()) {
      if (next === undefined) throw new Error(`Matching delimiter not found '${delimiter}'`);
      end = index - next.newline.length;
    }
    pairs[name] = end > start ? text.slice(start, end) : '';
  }
  return pairs;
}

/** Standard output line by line, as the runner reads it (.NET's `ReadLine`: CR LF, LF or CR ends a line). */
function parseLines(stdout: string): OutputLine[] {
  return stdout
    .split(/\r\n|\r|\n/)
    .filter((raw, i, all) => raw !== '' || i < all.length - 1)
    .map((raw) => {
      const match = /^::([a-z-]+)(?: [^:]*)?::(.*)$/.exec(raw);
      return match
        ? { raw, command: match[1], data: unescapeData(match[2]!) }
        : { raw, command: undefined, data: raw };
    });
}

/** Options of {@link runAction}. */
export interface RunOptions {
  /** The inputs, by their `action.yml` names (`api-key`). */
  inputs: Record<string, string>;
  /** The step's `env`. */
  env?: Record<string, string>;
  /** The runner's HOME (the fallback's default directory is below it). */
  home: string;
  /** Kill it after this long (ms). */
  timeoutMs?: number;
  /** Write and read the file commands as on this platform (default `linux`). */
  platform?: RunnerPlatform;
}

/**
 * Runs the Action once.
 *
 * @param options Inputs and env.
 * @returns What it printed and wrote.
 */
export async function runAction(options: RunOptions): Promise<ActionRun> {
  const dir = await mkdtemp(join(tmpdir(), 'vaultline-action-'));
  const envPath = join(dir, 'set_env');
  const outputPath = join(dir, 'set_output');
  await writeFile(envPath, '');
  await writeFile(outputPath, '');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: options.home,
    GITHUB_ACTIONS: 'true',
    GITHUB_ENV: envPath,
    GITHUB_OUTPUT: outputPath,
    ...options.env,
  };
  // As the runner names them: INPUT_ and the name in upper case, spaces as _ (dashes stay).
  for (const [name, value] of Object.entries(options.inputs))
    env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value;
  try {
    const { code, stdout, stderr } = await new Promise<{
      code: number | null;
      stdout: string;
      stderr: string;
    }>((resolve, reject) => {
      const args = options.platform === 'windows' ? ['--import', WINDOWS_EOL, ACTION] : [ACTION];
      const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
      child.on('error', reject);
      child.on('close', (exit) => {
        clearTimeout(timer);
        resolve({
          code: exit,
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: Buffer.concat(err).toString('utf8'),
        });
      });
    });
    const lines = parseLines(stdout);
    const envFile = await readFile(envPath, 'utf8');
    return {
      code,
      stdout,
      stderr,
      lines,
      masks: lines.filter((line) => line.command === 'add-mask').map((line) => line.data),
      env: parseFileCommands(envFile, options.platform),
      outputs: parseFileCommands(await readFile(outputPath, 'utf8'), options.platform),
      envFile,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The lines, other than its masks, that hold a value or a line of it (and whether each comes before
 * the value's mask: what the runner would print unmasked), and a value on stderr.
 *
 * @param run The run.
 * @param values The secret values.
 * @returns The leaks: `[]` when every value is masked before anything could print it, and never printed.
 */
export function unmaskedLeaks(run: ActionRun, values: readonly string[]): string[] {
  const leaks: string[] = [];
  for (const value of values) {
    const pieces = [value, ...value.split(/\r\n|\r|\n/)].filter((piece) => piece.length >= 3);
    for (const piece of new Set(pieces)) {
      const maskAt = run.lines.findIndex((line) => line.command === 'add-mask' && line.data === piece);
      run.lines.forEach((line, at) => {
        if (line.command === 'add-mask') return;
        if (line.data.includes(piece) || line.raw.includes(piece))
          leaks.push(`line ${at} holds a value${maskAt < 0 || at < maskAt ? ', before any mask of it' : ''}`);
      });
      if (run.stderr.includes(piece)) leaks.push('stderr holds a value');
    }
  }
  return leaks;
}
