/**
 * The `vaultline` program (bundled into one file by bundle.ts, loaded by cli.ts): runs the command tree, reports errors as one line (or JSON with
 * --json) with the documented exit code, and never prints an API key, a password or a token.
 *
 * @module
 */

import { createRedactor, EXIT } from '@vaultline/protocol';
import { CommanderError } from 'commander';

import { readEnvironment } from './env.ts';
import { toCliError } from './errors.ts';
import { printable, processOutput } from './output.ts';
import { createProgram } from './program.ts';

// A reader that went away (`vaultline read … | head -c 4`) ends the command quietly, as for cat.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? EXIT.ok);
});

const env = readEnvironment();
const output = processOutput();
const program = createProgram({ env, output });
program.exitOverride();
// Every level of the tree (item create, …) reports usage errors to the one handler below.
const overrideExits = (command: typeof program): void => {
  for (const sub of command.commands) {
    sub.exitOverride();
    overrideExits(sub);
  }
};
overrideExits(program);
const redact = createRedactor(env.secrets);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // commander has printed the message or the help already.
    process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else {
    const failure = toCliError(error);
    const json = process.argv.includes('--json');
    const message = redact(failure.message);
    if (json) process.stderr.write(`${JSON.stringify({ error: { code: failure.code, message } })}\n`);
    else
      process.stderr.write(
        `${message
          .split('\n')
          .map((line) => `vaultline: ${printable(line)}`)
          .join('\n')}\n`,
      );
    process.exitCode = failure.exitCode;
  }
}
