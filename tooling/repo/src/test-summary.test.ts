import { describe, expect, it } from 'vitest';
import { summarize, tallyLog } from './test-summary.ts';

/** The end of a `pnpm check` log where a suite failed in its hook: no test counted as failed. */
const FAILED_SUITE = [
  '@vaultline/cli:test:  \x1b[2m Test Files \x1b[22m \x1b[1m\x1b[32m31 passed\x1b[39m\x1b[22m (31)',
  '@vaultline/cli:test:       Tests  402 passed | 1 skipped (403)',
  '@vaultline/vault-server:test:  Test Files  1 failed | 38 passed (39)',
  '@vaultline/vault-server:test:       Tests  2100 passed (2100)',
  'vaultline-vscode:test: 9 passed, 0 failed',
  '',
  ' Tasks:    40 successful, 41 total',
  'Failed:    @vaultline/vault-server#test',
  '',
  ' ERROR  run failed: command  exited (1)',
].join('\n');

describe('the closing line of ./run.sh test', () => {
  it('counts a failed suite and a failed task, and never says 0 failed alone for a failed run', () => {
    expect(tallyLog(FAILED_SUITE)).toEqual({
      passed: 2511,
      failed: 0,
      failedFiles: 1,
      failedTasks: ['@vaultline/vault-server#test'],
    });
    expect(summarize(FAILED_SUITE, 1)).toBe(
      'tests: 2511 passed, 0 failed; 1 test files failed; failed tasks: @vaultline/vault-server#test; the run FAILED (exit 1)',
    );
  });

  it('says a run failed even where the log names nothing (a lint or a build)', () => {
    expect(summarize(' ERROR  run failed: command  exited (1)', 1)).toBe(
      'tests: 0 passed, 0 failed; the run FAILED (exit 1)',
    );
  });

  it('counts failed tests of vitest and of the extension', () => {
    const log = ['x:test:  Tests  2 failed | 10 passed (12)', 'vscode:test: 4 passed, 1 failed'].join('\n');
    expect(summarize(log, 0)).toBe('tests: 14 passed, 3 failed');
  });
});
