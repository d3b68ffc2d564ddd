/**
 * `vaultline-server keys create|list|revoke`: API keys. A key is shown once; only its hash is
 * stored.
 *
 * @module
 */

import { Command } from 'commander';
import { type CliContext, withAdmin } from '../context.ts';
import { collect } from '../options.ts';
import { list } from '../output.ts';

/**
 * The `keys` command group.
 *
 * @param context Where output goes.
 * @returns The command.
 */
export function keysCommand(context: CliContext): Command {
  const { io } = context;
  const keys = new Command('keys').description('API keys: create, list, revoke.');
  keys
    .command('create')
    .description('Create an API key; it is shown once and only its hash is stored.')
    .requiredOption('--label <label>', 'a unique label for the key')
    .option('--user <login>', 'bind the key to this user (an admin key without it)')
    .option('--allow-ip <cidr>', 'allow only this address or CIDR range (repeatable)', collect, [])
    .option('--json', 'print {"label","key"} as JSON')
    .action(async (options: { label: string; user?: string; allowIp: string[]; json?: boolean }) => {
      const key = await withAdmin((admin) =>
        admin.createKey({
          label: options.label,
          ...(options.user === undefined ? {} : { login: options.user }),
          allowIps: options.allowIp,
        }),
      );
      io.out(options.json ? `${JSON.stringify({ label: options.label, key })}\n` : `${key}\n`);
      io.err('This key is shown once; only its hash is stored.\n');
    });
  keys
    .command('list')
    .description('List keys (labels, owners, allow-lists; never the keys).')
    .option('--json', 'one JSON record per line')
    .action(async (options: { json?: boolean }) => {
      const found = await withAdmin((admin) => admin.listKeys());
      list(
        io,
        options.json,
        found.map((k) => ({
          label: k.label,
          user: k.login ?? '(admin)',
          allow_ips: k.allowIps.join(',') || '(any)',
          created: k.createdAt,
          revoked: k.revokedAt ?? '',
        })),
        found,
      );
    });
  keys
    .command('revoke')
    .description('Revoke a key.')
    .requiredOption('--label <label>', 'the key to revoke')
    .action(async (options: { label: string }) => {
      await withAdmin((admin) => admin.revokeKey(options.label));
      io.out(`Revoked ${options.label}.\n`);
    });
  return keys;
}
