/**
 * `vaultline run [--env-file F]... [--no-masking] -- <command> [args]`: resolves every reference
 * in the environment and the env files, starts the command with the values in its environment
 * only, masks them in its output, forwards signals and exits with its code. Nothing is written to
 * disk, unless `--cache-max-age` keeps the values, sealed, for when the vault cannot be reached.
 *
 * @module
 */

import { Command } from 'commander';
import { ENV } from '../../constants.ts';
import { type CommandContext, lazy } from '../../context.ts';

/**
 * The `run` command.
 *
 * @param context The environment and output.
 * @returns The command.
 */
export function runCommand(context: CommandContext): Command {
  return new Command('run')
    .description(
      `Run a command with the references in its environment (and in --env-file files) replaced by their values: the values go to the command only, are masked in its output, and never touch the disk (with --cache-max-age, only sealed). ${ENV.apiKey}, ${ENV.password} and ${ENV.personalAccessToken} are not passed on.`,
    )
    .usage('[options] -- <command> [args...]')
    .argument('<command...>', 'the command and its arguments (after --)')
    .option(
      '-f, --env-file <path>',
      'read variables from a dotenv file; repeatable, later files win, the environment wins over files (Node itself exits 9 on a missing --env-file file: -f avoids that)',
      (path: string, previous: string[]) => [...previous, path],
      [] as string[],
    )
    .option('--no-masking', 'do not mask the values in the command output')
    .option(
      '--cache-max-age <duration>',
      `keep the values sealed on disk and use them, with a warning, when the vault cannot be reached, if not older than this (90s, 30m, 12h, 7d); never after a refusal (or ${ENV.cacheMaxAge})`,
    )
    .passThroughOptions()
    .action(lazy(context, async () => (await import('./action.ts')).runAction));
}
