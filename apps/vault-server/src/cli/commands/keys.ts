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

/** Reads `--expires`: an ISO date, or a duration from now (`90d`, `12h`, `30m`). */
export function expiryOf(text: string): Date {
  const duration = /^([1-9][0-9]{0,5})([dhm])$/.exec(text.trim());
  if (duration) {
    const unit = { d: 86_400_000, h: 3_600_000, m: 60_000 }[duration[2] as 'd' | 'h' | 'm'];
    return new Date(Date.now() + Number(duration[1]) * unit);
  }
  const date = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(date.getTime()))
    throw new Error('Expected --expires as an ISO date (2027-01-31) or a duration (90d, 12h, 30m).');
  return date;
}

/** The upstream binding of `keys create` (and of `trust add`), from its options. */
export function upstreamOptions(options: {
  upstreamAccount?: string;
  folder: string[];
  folderPath: string[];
  allFolders?: boolean;
  subfolders?: boolean;
  write?: boolean;
}) {
  const named = options.folder.length + options.folderPath.length > 0;
  const scoped = named || options.allFolders || options.subfolders || options.write;
  if (options.upstreamAccount === undefined) {
    if (scoped) throw new Error('--folder, --all-folders, --subfolders and --write need --upstream-account.');
    return undefined;
  }
  if (options.folder.length > 0 === Boolean(options.allFolders))
    throw new Error('Give the key a scope: --folder <id> (repeatable) or --all-folders.');
  const folders = options.folder.map((text) => {
    if (!/^[1-9][0-9]{0,15}$/.test(text))
      throw new Error(`Expected --folder to be a folder id, received ${JSON.stringify(text.slice(0, 20))}.`);
    return Number(text);
  });
  return {
    account: options.upstreamAccount,
    folders: options.allFolders ? ('all' as const) : folders,
    paths: options.folderPath,
    subfolders: options.subfolders ?? false,
    write: options.write ?? false,
  };
}

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
    .option('--upstream-account <name>', 'upstream mode: bind the key to this account (upstream add)')
    .option('--folder <id>', 'upstream keys: a folder of its scope (repeatable)', collect, [])
    .option(
      '--folder-path <path>',
      'upstream keys: a folder of its scope by path, titles joined by "/" (repeatable; TeamPass 3)',
      collect,
      [],
    )
    .option('--all-folders', 'upstream keys: every folder the account may reach')
    .option('--subfolders', 'upstream keys: the scope includes the subfolders of its folders (TeamPass 3)')
    .option('--write', 'upstream keys: may add, update and delete (read-only without it)')
    .option('--expires <when>', 'the key stops working then: an ISO date, or a duration like 90d, 12h, 30m')
    .option('--json', 'print {"label","key","profile"} as JSON')
    .action(
      async (options: {
        label: string;
        user?: string;
        allowIp: string[];
        profile: ApiProfile;
        upstreamAccount?: string;
        folder: string[];
        folderPath: string[];
        allFolders?: boolean;
        subfolders?: boolean;
        write?: boolean;
        expires?: string;
        json?: boolean;
      }) => {
        const upstream = upstreamOptions(options);
        const expiresAt = options.expires === undefined ? undefined : expiryOf(options.expires);
        const key = await withAdmin((admin) =>
          admin.createKey({
            label: options.label,
            ...(options.user === undefined ? {} : { login: options.user }),
            allowIps: options.allowIp,
            profile: options.profile,
            upstream,
            expiresAt,
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
          upstream: k.upstreamAccount ?? '',
          scope:
            k.scope === null
              ? ''
              : `${k.scope === 'all' ? 'all' : [...k.scope, ...k.paths].join(',')}${k.subfolders ? '+sub' : ''}`,
          write: k.upstreamAccount === null ? '' : k.write ? 'yes' : 'no',
          expires: k.expiresAt ?? '',
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
