import { type ChildProcess, fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { BOT_TOKEN, SIGNING_SECRET } from './bot.ts';
import { eventually } from './poll.ts';

/** A port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts the real entry point (`src/main.ts`) in its own process, as an operator would, and waits
 * until it answers `/healthz`.
 *
 * @param env Settings on top of the signing secret, the bot token and the address.
 * @param port The HTTP port.
 * @returns The process.
 */
export async function startBotProcess(env: Record<string, string>, port: number): Promise<ChildProcess> {
  const child = fork(join(import.meta.dirname, '../../src/main.ts'), [], {
    env: {
      PATH: process.env.PATH ?? '',
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    // Start-up opens the PGlite store (WebAssembly): seconds alone, far longer on a loaded CI machine.
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`the bot process exited with ${child.exitCode}`);
        try {
          return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
        } catch {
          return false; // Not listening yet.
        }
      },
      60_000,
      { every: 50, what: 'the bot process did not start' },
    );
    return child;
  } catch (error) {
    // The caller never gets the child to stop: left running, it would hold the test run's stderr
    // open, and the run would never end.
    child.kill('SIGKILL');
    throw error;
  }
}

/**
 * Kills a process with SIGKILL and waits for it to be gone.
 *
 * @param child The process.
 */
export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
