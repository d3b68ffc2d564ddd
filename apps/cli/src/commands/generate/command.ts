/**
 * `vaultline generate`: a password from the core's generator (Web Crypto, no bias, every class
 * asked for), long enough for a folder's strength rule when a folder is given. Nothing is sent
 * without a folder; with one, only the login's folder list is read (no secrets).
 *
 * @module
 */

import { PASSWORD_LENGTH } from '@vaultline/protocol';
import { Command } from 'commander';
import { type CommandContext, lazy } from '../../context.ts';

/**
 * The `generate` command.
 *
 * @param context The environment and output.
 * @returns The command.
 */
export function generateCommand(context: CommandContext): Command {
  return new Command('generate')
    .description(
      "Print a new random password from the core's generator; with --folder, strong enough for that folder's rule.",
    )
    .option('--folder <folder>', 'a folder id or path whose strength rule (complexity level) it must meet')
    .option(
      '-l, --length <n>',
      `the length, ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} (default: the shortest that meets the rule, at least 16)`,
    )
    .option('--no-upper', 'no upper-case letters')
    .option('--no-digits', 'no digits')
    .option('--no-symbols', 'no symbols')
    .option('--ambiguous', 'allow look-alike characters (l, I, O, 0, 1)')
    .option('--json', 'print JSON: {"password","length","bits","complexityLevel","folderId"}')
    .action(lazy(context, async () => (await import('./action.ts')).generateAction));
}
