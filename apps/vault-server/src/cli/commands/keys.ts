/**
 * `vaultline-server keys create|list|revoke`: API keys. A key is shown once; only its hash is
 * stored.
 *
 * @module
 */

import { API_PROFILES, type ApiProfile, DEFAULT_API_PROFILE } from '@vaultline/protocol/wire';
import { Command, Option } from 'commander';
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
    .addOption(
      new Option(
        '--profile <profile>',
        'how the API answers this key: vaultline, or teampass for scripts written for TeamPass 2 (its statuses and error words, JSON delete status, info/version api-version)',
      )
        .choices(API_PROFILES)
        .default(DEFAULT_API_PROFILE),
    )
    .option('--json', 'print {"label","key","profile"} as JSON')
    .action(
      async (options: {
        label: string;
        user?: string;
        allowIp: string[];
        profile: ApiProfile;
        json?: boolean;
      }) => {
        const key = await withAdmin((admin) =>
          admin.createKey({
            label: options.label,
            ...(options.user === undefined ? {} : { login: options.user }),
            allowIps: options.allowIp,
            profile: options.profile,
          }),
        );
        io.out(
          options.json
            ? `${JSON.stringify({ label: options.label, key, profile: options.profile })}\n`
            : `${key}\n`,
        );
        io.err('This key is shown once; only its hash is stored.\n');
      },
    );
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
          profile: k.profile,
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
