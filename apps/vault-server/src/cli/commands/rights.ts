/**
 * `vaultline-server grant` and `revoke`: a role's right on a folder, one of the core's rights.
 *
 * @module
 */

import { ACCESS_TYPES, type AccessType } from '@vaultline/protocol';
import { Command } from 'commander';
import { type CliContext, withAdmin } from '../context.ts';
import { accessType, positiveInteger } from '../options.ts';

const folderId = positiveInteger('--folder', Number.MAX_SAFE_INTEGER);

/**
 * The `grant` command.
 *
 * @param context Where output goes.
 * @returns The command.
 */
export function grantCommand(context: CliContext): Command {
  return new Command('grant')
    .description("Set a role's right on a folder.")
    .requiredOption('--role <role>', 'the role')
    .requiredOption('--folder <id>', 'the folder id', folderId)
    .requiredOption('--access <right>', `the right: ${ACCESS_TYPES.join(', ')}`, accessType)
    .action(async (options: { role: string; folder: number; access: AccessType }) => {
      await withAdmin((admin) => admin.grant(options.role, options.folder, options.access));
      context.io.out(`Role ${options.role} has ${options.access} on folder ${options.folder}.\n`);
    });
}

/**
 * The `revoke` command.
 *
 * @param context Where output goes.
 * @returns The command.
 */
export function revokeCommand(context: CliContext): Command {
  return new Command('revoke')
    .description("Remove a role's right on a folder.")
    .requiredOption('--role <role>', 'the role')
    .requiredOption('--folder <id>', 'the folder id', folderId)
    .action(async (options: { role: string; folder: number }) => {
      await withAdmin((admin) => admin.revoke(options.role, options.folder));
      context.io.out(`Role ${options.role} has no right on folder ${options.folder} any more.\n`);
    });
}
