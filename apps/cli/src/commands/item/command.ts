/**
 * `vaultline item create|edit|delete`: writes for scripts and people. Each checks the acting
 * login's right on the folder first (the core's rights table, from read/userfolders), asks on a
 * terminal and needs `--yes` elsewhere, and takes a new password from stdin, a file, a prompt
 * without echo or the core's generator: never from an argument, which `ps` shows. What it prints
 * is the item's id and reference, never its password.
 *
 * @module
 */

import { Command } from 'commander';
import { type CommandContext, lazy } from '../../context.ts';

const PASSWORD_HELP = `
The password is never an argument (the process list shows arguments): pipe it with
--password-stdin (printf %s "$PASS" | vaultline item create … --password-stdin --yes), read it
from a file with --password-file, let --generate make one for the folder's rule, or type it
when asked on a terminal (not shown).`;

function withFieldOptions(command: Command): Command {
  return command
    .option('--login <login>', "the item's login")
    .option('--email <email>', "the item's email")
    .option('--url <url>', "the item's URL")
    .option('--description <text>', "the item's description")
    .option('--tags <tags>', 'tags separated by spaces')
    .option('--anyone-can-modify', 'let anyone who may read the item edit it');
}

function withPasswordOptions(command: Command): Command {
  return command
    .option('--password-stdin', 'read the password from stdin (all of it; one final newline dropped)')
    .option('--password-file <path>', 'read the password from a file (one final newline dropped)')
    .option('--generate', "generate the password with the core's generator, for the folder's rule");
}

function withWriteOptions(command: Command): Command {
  return command
    .option('-y, --yes', 'write without asking (needed when not on a terminal, e.g. in CI)')
    .option('--json', 'print JSON');
}

function createCommand(context: CommandContext): Command {
  return withWriteOptions(
    withPasswordOptions(
      withFieldOptions(
        new Command('create')
          .description('Create an item in a folder; prints its id and reference, never its password.')
          .requiredOption('--folder <folder>', 'the folder: an id (7) or a path (Engineering/Databases)')
          .requiredOption('--label <label>', "the item's label (unique in the vault up to case and accents)"),
      ),
    ),
  )
    .addHelpText('after', PASSWORD_HELP)
    .action(lazy(context, async () => (await import('./action.ts')).createAction));
}

function editCommand(context: CommandContext): Command {
  return withWriteOptions(
    withPasswordOptions(
      withFieldOptions(
        new Command('edit')
          .description('Change fields of an item (only those given); moves it with --folder.')
          .argument('<id>', 'the item id')
          .option('--label <label>', 'a new label')
          .option('--folder <folder>', 'move it to this folder (id or path)')
          .option('--ask-password', 'ask for a new password on the terminal (not shown)'),
      ),
    ),
  )
    .addHelpText(
      'after',
      `${PASSWORD_HELP}
On a vault whose reads do not return tags (the legacy API), an edit sends the tags and "anyone can
modify" given here: pass --tags (and --anyone-can-modify) to keep them.`,
    )
    .action(lazy(context, async () => (await import('./action.ts')).editAction));
}

function deleteCommand(context: CommandContext): Command {
  return withWriteOptions(
    new Command('delete')
      .description('Delete items by id, after checking your right to delete each.')
      .argument('<ids...>', 'the item ids'),
  ).action(lazy(context, async () => (await import('./action.ts')).deleteAction));
}

/**
 * The `item` command and its subcommands.
 *
 * @param context The environment and output.
 * @returns The command.
 */
export function itemCommand(context: CommandContext): Command {
  return new Command('item')
    .description('Create, edit or delete items; asks before writing on a terminal, needs --yes elsewhere.')
    .addCommand(createCommand(context))
    .addCommand(editCommand(context))
    .addCommand(deleteCommand(context));
}
