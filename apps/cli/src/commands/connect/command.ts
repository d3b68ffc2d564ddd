/**
 * `vaultline connect <url> --login <login>`: tells which API the vault speaks (one keyless
 * request), asks for what signing in there needs (an API key; or the password with the API key,
 * or a personal access token), checks it by signing in once, and stores the URL, login, dialect
 * and way of signing in in the config file, the secrets in the OS keychain (where there is none:
 * in a sealed file, or nowhere and asked on each command, as the person chooses) and the session
 * token next to them. `vaultline disconnect` signs the session out and forgets all of it.
 *
 * @module
 */

import { Command, Option } from 'commander';
import { DEFAULT_CONNECTION, ENV, STORES } from '../../constants.ts';
import { type CommandContext, lazy } from '../../context.ts';

/**
 * The `connect` command.
 *
 * @param context The environment and output.
 * @returns The command.
 */
export function connectCommand(context: CommandContext): Command {
  return new Command('connect')
    .description(
      `Check and store a vault connection: asks for what the vault needs (an API key; or the password and API key, or a personal access token, where you sign in), signs in once to check, stores URL, login and dialect in the config file and the secrets in the OS keychain (without one: a sealed file, or nowhere, see --store). In CI, set ${ENV.url}, ${ENV.login}, ${ENV.apiKey} (and ${ENV.password}) instead.`,
    )
    .argument('<url>', "the vault's base URL, e.g. https://vault.example.com")
    .requiredOption('-l, --login <login>', 'the vault login to act for (where you sign in: your login)')
    .option(
      '-n, --name <name>',
      'a name for this connection, for people with several vaults',
      DEFAULT_CONNECTION,
    )
    .option(
      '--password-stdin',
      'read the password from stdin (with --key-stdin: the password on the first line, the key on the second)',
    )
    .option('--key-stdin', 'read the API key from stdin')
    .addOption(
      new Option(
        '--store <where>',
        'where typed or piped secrets are kept: keychain (the OS keychain), file (a file sealed with a key of this machine, for machines without a keychain) or none (asked for on each command, on a terminal); without it, the keychain, or a question when there is none',
      ).choices(STORES),
    )
    .option(
      '--key-in-url',
      "TeamPass 2 behind a proxy that hides its answers: send the API key in the URL (?apikey=) without the vault's identification; proxy and access logs keep the key",
    )
    .option(
      '--pat-stdin',
      'read a personal access token from stdin, instead of the password and key (where the vault allows them)',
    )
    .addHelpText(
      'after',
      `\nWhat is not piped comes from the environment (${ENV.apiKey}, ${ENV.password}, ${ENV.personalAccessToken}; with _<NAME> for a named connection) and is not stored, or is asked for without echo on a terminal. Piped and typed secrets go to the OS keychain; where there is none (SSH sessions, containers, WSL), connect says so and asks where they go (--store file or none), before anything is sent.`,
    )
    .action(lazy(context, async () => (await import('./action.ts')).connectAction));
}

/**
 * The `disconnect` command.
 *
 * @param context The environment and output.
 * @returns The command.
 */
export function disconnectCommand(context: CommandContext): Command {
  return new Command('disconnect')
    .description(
      'Sign the cached session out, and forget a stored connection and its secrets (API key, password, tokens) in the OS keychain or the secrets file.',
    )
    .option('-n, --name <name>', 'the connection to forget', DEFAULT_CONNECTION)
    .action(lazy(context, async () => (await import('./action.ts')).disconnectAction));
}
