/**
 * `vaultline find [words] [--tag T] [--url U]`: items with every word in their label, login, URL or
 * folder path, among the folders the login may read, best first (the core's ranking); or those
 * with a tag, or whose URL holds a text; with the reference to use. Never a password.
 *
 * @module
 */

import { Command } from 'commander';
import { type CommandContext, lazy } from '../../context.ts';

/**
 * The `find` command.
 *
 * @param context The environment and output.
 * @returns The command.
 */
export function findCommand(context: CommandContext): Command {
  return new Command('find')
    .description(
      'Find items among the folders your login may read by words in their label, login, URL or folder path (best first), by tag or by URL; prints ids, paths and references, never passwords.',
    )
    .argument('[words...]', 'words to find, in any order')
    .option('--tag <tag>', 'only items with this tag (where the vault returns tags)')
    .option('--url <url>', 'only items whose URL contains this text')
    .option('--json', 'print JSON')
    .action(lazy(context, async () => (await import('./action.ts')).findAction));
}
