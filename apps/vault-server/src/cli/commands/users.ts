/**
 * `vaultline-server users list|create|assign|unassign`: users and their roles.
 *
 * @module
 */

import { Command } from 'commander';
import { type CliContext, withAdmin } from '../context.ts';
import { list } from '../output.ts';

/**
 * The `users` command group (`list` when no subcommand is given).
 *
 * @param context Where output goes.
 * @returns The command.
 */
export function usersCommand(context: CliContext): Command {
  const { io } = context;
  const users = new Command('users').description('Users: list, create, assign or unassign a role.');
  users
    .command('list', { isDefault: true })
    .description('List users with their roles.')
    .option('--json', 'one JSON record per line')
    .action(async (options: { json?: boolean }) => {
      const found = await withAdmin((admin) => admin.listUsers());
      list(
        io,
        options.json,
        found.map((u) => ({ id: u.id, login: u.login, email: u.email, roles: u.roles.join(',') })),
        found,
      );
    });
  users
    .command('create')
    .description('Create a user.')
    .requiredOption('--login <login>', 'letters, digits, ".", "_", "@" or "-"')
    .option('--email <email>', 'the email address')
    .action(async (options: { login: string; email?: string }) => {
      const { id } = await withAdmin((admin) =>
        admin.createUser({
          login: options.login,
          ...(options.email === undefined ? {} : { email: options.email }),
        }),
      );
      io.out(`Created user ${options.login} with id ${id}.\n`);
    });
  for (const [name, verb] of [
    ['assign', 'Give a user a role.'],
    ['unassign', 'Take a role from a user.'],
  ] as const) {
    users
      .command(name)
      .description(verb)
      .requiredOption('--login <login>', 'the user')
      .requiredOption('--role <role>', 'the role')
      .action(async (options: { login: string; role: string }) => {
        await withAdmin((admin) =>
          name === 'assign'
            ? admin.assignRole(options.login, options.role)
            : admin.unassignRole(options.login, options.role),
        );
        io.out(
          name === 'assign'
            ? `Gave role ${options.role} to ${options.login}.\n`
            : `Took role ${options.role} from ${options.login}.\n`,
        );
      });
  }
  return users;
}
