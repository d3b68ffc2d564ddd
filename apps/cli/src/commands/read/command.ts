/**
 * `vaultline read <reference...>` (several at once with `--json`: one batch, one JSON array) and `vaultline get <reference|id> [--field F]`: one value, to stdout,
 * because it was asked for. `get <id>` without a field prints the item without its password.
 *
 * @module
 */

import { OTP_FIELD, REFERENCE_FIELDS } from '@vaultline/protocol';
import { Command } from 'commander';

import { type CommandContext, lazy } from '../../context.ts';

/**
 * The `read` command.
 *
 * @param context The environment and output.
 * @returns The command.
 */
export function readCommand(context: CommandContext): Command {
  return new Command('read')
    .description(
      'Print the value a reference names (a password, a field, the current one-time code, an attachment) to stdout.',
    )
    .argument(
      '<reference...>',
      'e.g. vaultline://42/password, vaultline://42/otp or vaultline://Team/Databases/prod%20db/login; several with --json',
    )
    .option(
      '--json',
      'print JSON: {"reference","value"} ({"reference","file","base64"} for attachments; "secondsLeft" with a one-time code); an array of them for several references',
    )
    .option('--no-newline', 'do not end the value with a newline')
    .action(lazy(context, async () => (await import('./action.ts')).readAction));
}

/**
 * The `get` command.
 *
 * @param context The environment and output.
 * @returns The command.
 */
export function getCommand(context: CommandContext): Command {
  return new Command('get')
    .description(
      'Show an item by id or reference. With --field (or a reference), print that value; an item alone is shown without its password.',
    )
    .argument('<target>', 'an item id (42) or a reference (vaultline://42/password)')
    .option(
      '-f, --field <field>',
      `the field to print: ${REFERENCE_FIELDS.join(', ')}, ${OTP_FIELD} (the current one-time code) or file:<name>`,
    )
    .option('--json', 'print JSON')
    .option('--no-newline', 'do not end a printed value with a newline')
    .action(lazy(context, async () => (await import('./action.ts')).getAction));
}
