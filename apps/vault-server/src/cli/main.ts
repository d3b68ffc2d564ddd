/**
 * The `vaultline-server` program (loaded by `cli.ts` after the memory settings): runs the command
 * tree and reports an error as one line with the documented exit code. What only one command needs
 * (the import, the demo, the key rotation, progress bars) is loaded by that command: a running server
 * does not hold it in memory.
 *
 * @module
 */

import { EXIT } from '@vaultline/protocol';
import { CommanderError } from 'commander';
import { type CliIo, PROCESS_IO } from './context.ts';
import { printable } from './output.ts';
import { createProgram } from './program.ts';

/**
 * Runs the command line.
 *
 * @param argv The arguments after the script.
 * @param io Where output goes.
 * @returns The exit code, or -1 when a server keeps running.
 */
async function main(argv: string[], io: CliIo = PROCESS_IO): Promise<number> {
  let keepAlive = false;
  const program = createProgram({
    io,
    keepAlive: () => {
      keepAlive = true;
    },
  });
  if (argv.length === 0) {
    program.outputHelp({ error: true });
    return EXIT.usage;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return keepAlive ? -1 : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // commander has printed the message or the help already.
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.version'
        ? EXIT.ok
        : EXIT.usage;
    }
    io.err(`error: ${printable(error instanceof Error ? error.message : String(error))}\n`);
    return EXIT.error;
  }
}

const code = await main(process.argv.slice(2));
if (code >= 0) process.exitCode = code;
