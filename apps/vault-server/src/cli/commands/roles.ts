/**
 * `vaultline-server roles list|create`: roles, with their folder rights.
 *
 * @module
 */

import { Command } from 'commander';
import { type CliContext, withAdmin } from '../context.ts';
import { list } from '../output.ts';

/**
 * The `roles` command group (`list` when no subcommand is given).
 *
 * @param context Where output goes.
 * @returns The command.
 */
export function rolesCommand(context: CliContext): Command {
  const { io } = context;
  const roles = new Command('roles').description('Roles: list, create.');
  roles
    .command('list', { isDefault: true })
    .description('List roles with their folder rights.')
    .option('--json', 'one JSON record per line')
    .action(async (options: { json?: boolean }) => {
      const found = await withAdmin((admin) => admin.listRoles());
      list(
        io,
        options.json,
        found.map((r) => ({
          id: r.id,
          name: r.name,
          rights: r.rights.map((x) => `${x.folderId}:${x.access}`).join(' '),
        })),
        found,
      );
    });
  roles
    .command('create')
    .description('Create a role.')
    .requiredOption('--name <name>', 'the role name')
    .action(async (options: { name: string }) => {
      const { id } = await withAdmin((admin) => admin.createRole({ name: options.name }));
      io.out(`Created role ${options.name} with id ${id}.\n`);
    });
  return roles;
}
