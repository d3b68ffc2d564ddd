/**
 * The closing line of `./run.sh test`, over the log of `pnpm check`: the tests passed and failed
 * (vitest's `Tests  N failed | N passed` lines and the extension's `N passed, N failed`), the test
 * files that failed (a suite that failed to start or whose hook failed counts no failed test), and
 * the turbo tasks that failed (a build, a typecheck, a lint). A run that failed never reads as
 * `0 failed` alone.
 *
 * @module
 */

/** What a log says. */
export interface TestTally {
  passed: number;
  failed: number;
  /** Test files (suites) that failed. */
  failedFiles: number;
  /** The turbo tasks that failed, as turbo names them (`@vaultline/cli#test`). */
  failedTasks: string[];
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's colour codes are removed.
const COLOURS = /\x1b\[[0-9;]*m/g;

/** Counts `N word` pairs of a line. */
function count(line: string, word: string): number {
  let total = 0;
  for (const match of line.matchAll(new RegExp(`(\\d+) ${word}\\b`, 'g'))) total += Number(match[1]);
  return total;
}

/**
 * Reads the tallies of a `pnpm check` log.
 *
 * @param log The log, colours and all.
 * @returns What it says.
 */
export function tallyLog(log: string): TestTally {
  const tally: TestTally = { passed: 0, failed: 0, failedFiles: 0, failedTasks: [] };
  for (const raw of log.split('\n')) {
    const line = raw.replace(COLOURS, '');
    if (/\bTest Files\s+\d/.test(line)) tally.failedFiles += count(line, 'failed');
    else if (/\bTests\s+\d/.test(line) || /\d+ passed, \d+ failed/.test(line)) {
      tally.passed += count(line, 'passed');
      tally.failed += count(line, 'failed');
    }
    const failed = /^\s*Failed:\s+(.+)$/.exec(line);
    if (failed) tally.failedTasks.push(...failed[1]!.split(/[,\s]+/).filter((task) => task.includes('#')));
  }
  return tally;
}

/**
 * The closing line.
 *
 * @param log The log of `pnpm check`.
 * @param status Its exit status.
 * @returns One line.
 */
export function summarize(log: string, status: number): string {
  const tally = tallyLog(log);
  const parts = [`tests: ${tally.passed} passed, ${tally.failed} failed`];
  if (tally.failedFiles > 0) parts.push(`${tally.failedFiles} test files failed`);
  if (tally.failedTasks.length > 0) parts.push(`failed tasks: ${tally.failedTasks.join(', ')}`);
  if (status !== 0) parts.push(`the run FAILED (exit ${status})`);
  return parts.join('; ');
}

if (import.meta.main) {
  const status = Number(process.argv[2] ?? '0');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  process.stdout.write(`${summarize(Buffer.concat(chunks).toString('utf8'), status)}\n`);
}
