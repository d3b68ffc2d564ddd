/**
 * `vaultline connect <url> --login <login>`: checks the connection, stores URL and login in the
 * config file, and the key (from stdin) in the OS keychain. Never writes the key to a file.
 *
 * @module
 */

import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { createRedactor, createVaultClient, EXIT } from '@vaultline/protocol';
import { Command } from 'commander';
import { configPath, readConfig, writeConfig } from '../config.ts';
import { DEFAULT_CONNECTION, ENV } from '../constants.ts';
import type { CommandContext } from '../context.ts';
import { keyVariable } from '../env.ts';
import { CliError, toCliError } from '../errors.ts';
import { deleteKey, keychainAccount, storeKey } from '../keychain.ts';
import { withSpinner } from '../spinner.ts';

/** The longest key read from stdin. */
const MAX_KEY_LENGTH = 4096;

async function readKeyFromStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    // Read without echo: the terminal's echo goes to a stream that drops it.
    const silent = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    const prompt = createInterface({ input: process.stdin, output: silent, terminal: true });
    process.stderr.write('API key: ');
    try {
      return (await prompt.question('')).trim();
    } finally {
      prompt.close();
      process.stderr.write('\n');
    }
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin) {
    total += (chunk as Buffer).length;
    if (total > MAX_KEY_LENGTH)
      throw new CliError(
        'invalid_key',
        `The API key on stdin is longer than ${MAX_KEY_LENGTH} bytes.`,
        EXIT.usage,
      );
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8').trim();
}

/**
 * The `connect` command.
 *
 * @param context The environment and output.
 * @returns The command.
 */
export function connectCommand(context: CommandContext): Command {
  return new Command('connect')
    .description(
      `Check and store a vault connection: URL and login in the config file, the API key in the OS keychain (never in a file). In CI, set ${ENV.url}, ${ENV.login} and ${ENV.apiKey} instead.`,
    )
    .argument('<url>', "the vault's base URL, e.g. https://vault.example.com")
    .requiredOption('-l, --login <login>', 'the vault login to act for')
    .option(
      '-n, --name <name>',
      'a name for this connection, for people with several vaults',
      DEFAULT_CONNECTION,
    )
    .option(
      '--key-stdin',
      `read the API key from stdin and store it in the keychain (otherwise ${ENV.apiKey} is used and not stored)`,
    )
    .action(async (url: string, options: { login: string; name: string; keyStdin?: boolean }) => {
      const { env, output } = context;
      const key = options.keyStdin ? await readKeyFromStdin() : env.keyFor(options.name);
      if (key === undefined || key === '') {
        throw new CliError(
          'no_key',
          `No API key: pipe it to vaultline connect --key-stdin (stored in the OS keychain), or set ${keyVariable(options.name)}.`,
          EXIT.auth,
        );
      }
      let client: ReturnType<typeof createVaultClient>;
      try {
        client = createVaultClient({ baseUrl: url, apiKey: key });
      } catch (error) {
        throw new CliError('invalid_url', toCliError(error).message, EXIT.usage);
      }
      const redact = createRedactor([key]);
      try {
        const folders = await withSpinner(`Checking ${client.baseUrl}…`, () =>
          client.readUserFolders({ login: options.login }),
        );
        output.err(
          `Connected to ${client.baseUrl} as ${options.login} (${folders.length} folders readable).`,
        );
      } catch (error) {
        const failure = toCliError(error);
        const message =
          failure.code === 'unknown_login'
            ? `The vault has no user ${JSON.stringify(options.login)}.`
            : failure.message;
        throw new CliError(
          failure.code,
          redact(message),
          failure.exitCode === EXIT.reference ? EXIT.auth : failure.exitCode,
        );
      }
      const config = await readConfig(env.configDir);
      const previous = config.connections[options.name];
      config.connections[options.name] = { url: client.baseUrl, login: options.login };
      await writeConfig(env.configDir, config);
      output.err(
        `Saved connection ${JSON.stringify(options.name)} to ${configPath(env.configDir)} (URL and login only).`,
      );
      if (previous && (previous.url !== client.baseUrl || previous.login !== options.login)) {
        await deleteKey(keychainAccount(previous.url, previous.login)).catch(() => false);
      }
      if (options.keyStdin) {
        await storeKey(keychainAccount(client.baseUrl, options.login), key);
        output.err('Stored the API key in the OS keychain.');
      } else {
        output.err(`The API key was not stored: later commands read it from ${keyVariable(options.name)}.`);
      }
    });
}

/**
 * The `disconnect` command.
 *
 * @param context The environment and output.
 * @returns The command.
 */
export function disconnectCommand(context: CommandContext): Command {
  return new Command('disconnect')
    .description('Forget a stored connection and remove its API key from the OS keychain.')
    .option('-n, --name <name>', 'the connection to forget', DEFAULT_CONNECTION)
    .action(async (options: { name: string }) => {
      const { env, output } = context;
      const config = await readConfig(env.configDir);
      const stored = config.connections[options.name];
      if (!stored)
        throw new CliError(
          'no_connection',
          `No connection named ${JSON.stringify(options.name)}.`,
          EXIT.auth,
        );
      delete config.connections[options.name];
      await writeConfig(env.configDir, config);
      let removed = false;
      try {
        removed = await deleteKey(keychainAccount(stored.url, stored.login));
      } catch (error) {
        output.err(toCliError(error).message);
      }
      output.err(`Forgot connection ${JSON.stringify(options.name)}${removed ? ' and its key' : ''}.`);
    });
}
