/**
 * `vaultline ls [folder]`: without a folder, the folders the login may access with the right it
 * has on each; with one (by id or path), that folder's items, without search words. Never a
 * password: each item comes with the reference to use.
 *
 * @module
 */

import { Command } from 'commander';
import { type CommandContext, lazy } from '../../context.ts';

/**
 * The `ls` command.
 *
 * @param context The environment and output.
 * @returns The command.
 */
export function lsCommand(context: CommandContext): Command {
  return new Command('ls')
    .description(
      "List the folders your login may access (with your right on each), or one folder's items by its id or path; never passwords.",
    )
    .argument('[folder]', 'a folder id (7) or path (Engineering/Databases; %2F for a / in a title)')
    .option('--json', 'print JSON')
    .action(lazy(context, async () => (await import('./action.ts')).lsAction));
}
