// The `vaultline-server` command run as users run it, in its own process, for the CLI tests; and
// temporary directories removed after the file's tests.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll } from 'vitest';

/** The command's entry (run from source: Node strips the types). */
export const CLI = join(import.meta.dirname, '../../src/cli.ts');

const run = promisify(execFile);

/** How a run of the command ended. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `vaultline-server <args>` to its end.
 *
 * @param args The arguments.
 * @param env More environment, over the test's own.
 * @param timeoutMs The longest the run may take.
 * @param input What is written to its stdin.
 * @returns Its exit code and output, whether it succeeded or not.
 */
export async function runCli(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 120_000,
  input?: string,
): Promise<CliResult> {
  try {
    const running = run(process.execPath, [CLI, ...args], {
      // The test machines may run as root: `start` is let to (its refusal has tests of its own).
      env: { ...process.env, VAULTLINE_ALLOW_ROOT: '1', ...env },
      timeout: timeoutMs,
    });
    // What is piped to the command (a password for --password-stdin); otherwise stdin closes at once.
    running.child.stdin?.end(input ?? '');
    const { stdout, stderr } = await running;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/**
 * Makes temporary directories named `<prefix>…`, all removed once the calling file's tests are done.
 * Call it at the top level of a test file.
 *
 * @param prefix The name's start.
 * @returns A function that makes one more directory.
 */
export function tempDirs(prefix: string): () => Promise<string> {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
}
