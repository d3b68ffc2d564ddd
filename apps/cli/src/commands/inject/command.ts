/**
 * `vaultline inject -i template -o file`: the template with every reference replaced, written
 * mode 0600, never over an existing file without --force (then through a temporary file and a
 * rename, so the file is never half written or readable by others).
 *
 * @module
 */

import { Command } from 'commander';

import { ENV } from '../../constants.ts';
import { type CommandContext, lazy } from '../../context.ts';

/**
 * The `inject` command.
 *
 * @param context The environment and output.
 * @returns The command.
 */
export function injectCommand(context: CommandContext): Command {
  return new Command('inject')
    .description(
      'Write a template with every reference replaced by its value: to a new file (mode 0600, never overwritten without --force) or to stdout.',
    )
    .option('-i, --in-file <path>', 'the template; stdin when absent or -')
    .option('-o, --out-file <path>', 'the file to write; stdout when absent or -')
    .option('-f, --force', 'overwrite the output file when it exists')
    .option(
      '--cache-max-age <duration>',
      `keep the values sealed on disk and use them, with a warning, when the vault cannot be reached, if not older than this (90s, 30m, 12h, 7d); never after a refusal (or ${ENV.cacheMaxAge})`,
    )
    .action(lazy(context, async () => (await import('./action.ts')).injectAction));
}
