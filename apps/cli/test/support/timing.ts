import { spawn } from 'node:child_process';
import { EXIT } from '@vaultline/protocol';
import { CLI } from './cli.ts';

/**
 * Time limits from the work, not guesses: a test that starts `vaultline` processes gets time in
 * proportion to how many it starts and to how long one start takes on this machine now. One start
 * is measured when the test file is collected (the median of three `vaultline read` of a malformed
 * reference: the command's whole start-up, the client included, without a vault), so a loaded
 * machine (2 cores shared by several test runs) measures slow and gives more time. Not
 * `--version`, which is answered before anything loads and is several times cheaper than a
 * command that reads.
 *
 * Each e2e file sets its default from the most processes its plain tests start
 * (`vi.setConfig({ testTimeout: startsTimeout(3) })`); a test that starts more says how many.
 *
 * @module
 */

/** How many starts are measured; the median is kept. */
const SAMPLES = 3;

/** How much slower a start may get between the measurement and the test (the load moves). */
const SLACK = 4;

/** The test's own work besides starting processes: the server's answers, files, its checks. */
const BASE_MS = 10_000;

function timeOneStart(): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, 'read', 'not-a-reference'], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) =>
      code === EXIT.reference
        ? resolve(performance.now() - started)
        : reject(new Error(`vaultline read not-a-reference exited ${code}, not ${EXIT.reference}`)),
    );
  });
}

async function measureStart(): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) samples.push(await timeOneStart());
  return samples.sort((a, b) => a - b)[Math.floor(SAMPLES / 2)]!;
}

/** One `vaultline` start on this machine, now (ms). */
export const START_MS = await measureStart();

/**
 * The time limit of a test that starts processes.
 *
 * @param starts How many `vaultline` (or other Node) processes it starts, one after the other.
 * @param workMs Time for work that does not scale with the starts (a large vault read, a wait).
 * @returns The limit (ms).
 */
export function startsTimeout(starts: number, workMs = 0): number {
  return Math.ceil(BASE_MS + workMs + starts * START_MS * SLACK);
}
