/**
 * `vaultline-server upstream add|update|list|remove`: the TeamPass accounts the server acts as in upstream
 * mode. Secrets are read from a prompt or stdin, never from the command line; verified by signing
 * in; sealed with the master key; listed without them.
 *
 * @module
 */

import { resolve } from 'node:path';
import type { CredentialKind } from '@vaultline/protocol';
import { Command, Option } from 'commander';
import { methodColumnOf, type UpstreamSecrets } from '../../store/upstream-accounts.ts';
import { type CliContext, config, withAdmin } from '../context.ts';
import { list } from '../output.ts';
import { readSecrets } from '../read-secret.ts';

/**
 * The `upstream` command group.
 *
 * @param context Where output goes.
 * @returns The command.
 */
export function upstreamCommand(context: CliContext): Command {
  const { io } = context;
  const upstream = new Command('upstream').description(
    'Upstream accounts (upstream mode): the TeamPass accounts the server acts as.',
  );
  /** Reads an account's secrets (prompt or stdin) and registers them: a new account, or new credentials. */
  const register = async (
    options: { name: string; url?: string; login?: string; token?: boolean },
    replace: boolean,
  ) => {
    const url = options.url ?? config(resolve('.data/vault')).upstreamUrl;
    if (url === undefined)
      throw new Error('Expected --url or VAULTLINE_UPSTREAM_URL: the TeamPass to sign in to.');
    const login = options.login ?? '';
    let method: CredentialKind;
    let secrets: UpstreamSecrets;
    if (login === '') {
      if (options.token) throw new Error('--token needs --login (a TeamPass 3 user).');
      method = 'api-key';
      const [apiKey] = await readSecrets(process.stdin, ['TeamPass 2 API key: ']);
      secrets = { apiKey };
    } else if (options.token) {
      method = 'personal-access-token';
      const [personalAccessToken] = await readSecrets(process.stdin, ['Personal access token: ']);
      secrets = { personalAccessToken };
    } else {
      method = 'password';
      const [password, apiKey] = await readSecrets(process.stdin, ['Password: ', 'API key: ']);
      secrets = { password, apiKey };
    }
    const account = { name: options.name, url, login, method, secrets };
    const done = await withAdmin(async (admin) => {
      if (replace && (await admin.listUpstreamAccounts()).some((known) => known.name === options.name))
        return admin.updateUpstreamAccount(account);
      return admin.addUpstreamAccount(account);
    });
    io.out(
      `${replace ? 'Registered again' : 'Registered'} ${options.name} (${done.dialect === 'teampass3' ? 'TeamPass 3' : 'TeamPass 2'}).\n`,
    );
  };
  const credentialOptions = (command: Command) =>
    command
      .requiredOption('--name <name>', 'the name keys are bound to (letters, digits, ".", "_", "-")')
      .option('--url <url>', 'the TeamPass base URL (default: VAULTLINE_UPSTREAM_URL)')
      .option('--login <login>', 'the TeamPass 3 login the server acts as')
      .addOption(
        new Option('--token', 'sign in with a personal access token instead of password and API key'),
      );
  credentialOptions(
    upstream
      .command('add')
      .description(
        'Register a TeamPass account, verified by signing in. TeamPass 3: --login, then its password and API key (or --token: a personal access token). TeamPass 2: its API key alone. Secrets are asked for without echo, or read from stdin one per line.',
      ),
  )
    .option('--replace', 'an account of that name gets these credentials instead (its keys stay bound)')
    .action((options: { name: string; url?: string; login?: string; token?: boolean; replace?: boolean }) =>
      register(options, options.replace ?? false),
    );
  credentialOptions(
    upstream
      .command('update')
      .description(
        'Register new credentials for an account (a changed password or API key), verified by signing in; its keys stay bound, and a running server uses them from its next call.',
      ),
  ).action(async (options: { name: string; url?: string; login?: string; token?: boolean }) => {
    if (
      !(await withAdmin((admin) => admin.listUpstreamAccounts())).some((known) => known.name === options.name)
    )
      throw new Error(
        `No upstream account named ${JSON.stringify(options.name)}: upstream add registers one.`,
      );
    await register(options, true);
  });
  upstream
    .command('list')
    .description('List the accounts (never their secrets).')
    .option('--json', 'one JSON record per line')
    .action(async (options: { json?: boolean }) => {
      const found = await withAdmin((admin) => admin.listUpstreamAccounts());
      list(
        io,
        options.json,
        found.map((a) => ({
          name: a.name,
          url: a.url,
          dialect: a.dialect,
          login: a.login || '(api key)',
          signs_in_with: methodColumnOf(a.method),
          keys: a.keys,
          trust_policies: a.trustPolicies.join(', '),
          created: a.createdAt,
        })),
        found,
      );
    });
  upstream
    .command('remove')
    .description(
      'Remove an account; refused while a trust policy or a live key of keys create binds it. The keys of its exchanges, and its revoked and expired keys, are revoked with it.',
    )
    .requiredOption('--name <name>', 'the account')
    .action(async (options: { name: string }) => {
      await withAdmin((admin) => admin.removeUpstreamAccount(options.name));
      io.out(`Removed ${options.name}.\n`);
    });
  return upstream;
}
