/**
 * The command tree: commander builds `--help` for every command and the completion scripts are
 * generated from the same tree.
 *
 * @module
 */

import { readFileSync } from 'node:fs';
import { EXIT } from '@vaultline/protocol';
import { Argument, Command } from 'commander';
import { cacheCommand } from './commands/cache/command.ts';
import { connectCommand, disconnectCommand } from './commands/connect/command.ts';
import { findCommand } from './commands/find/command.ts';
import { generateCommand } from './commands/generate/command.ts';
import { injectCommand } from './commands/inject/command.ts';
import { itemCommand } from './commands/item/command.ts';
import { lsCommand } from './commands/ls/command.ts';
import { mcpCommand } from './commands/mcp/command.ts';
import { getCommand, readCommand } from './commands/read/command.ts';
import { runCommand } from './commands/run/command.ts';
import { completionScript, SHELLS, type Shell } from './completion.ts';
import { ENV } from './constants.ts';
import type { CommandContext } from './context.ts';

function version(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return typeof pkg === 'object' && pkg !== null && 'version' in pkg ? String(pkg.version) : '0.0.0';
}

const EXIT_HELP = `
Environment:
  ${ENV.url}        the vault's base URL (overrides the stored default connection)
  ${ENV.login}      the vault login to act for (where you sign in: the login that signs in)
  ${ENV.apiKey}    the API key (overrides the keychain; never passed to run's command)
  ${ENV.password}   the password, where the vault signs in with one (TeamPass 3; the same)
  ${ENV.personalAccessToken}
                       a personal access token instead of password and key (the same)
                       each secret with _<NAME> for the connection named <name>
  ${ENV.cacheDir}  where session tokens are cached when the keychain does not keep them

Exit codes:
  ${EXIT.ok} ok, ${EXIT.error} error, ${EXIT.usage} usage, ${EXIT.reference} reference not resolved, ${EXIT.auth} no connection/credentials or refused,
  ${EXIT.vault} vault unreachable or failing, ${EXIT.exists} output file exists; run: the command's own code
  (${EXIT.notFound} not found, ${EXIT.cannotExecute} not executable, ${EXIT.signalBase}+N killed by signal N).

References: vaultline://<item id>/<field>, vaultline://<folder>/.../<label>/<field>
  fields: password, login, email, url, description, label, otp, file:<name>
`;

/**
 * Builds the `vaultline` command tree.
 *
 * @param context The environment and output.
 * @returns The root command.
 */
export function createProgram(context: CommandContext): Command {
  const program = new Command('vaultline')
    .description(
      'Secret references for TeamPass-style vaults: keep vaultline:// references in files, resolve them into the process that needs them.',
    )
    .version(version(), '-V, --version')
    .option(
      '-c, --connection <name>',
      'the stored connection to use (see connect --name); references may name one too',
    )
    .enablePositionalOptions()
    .showHelpAfterError('(run vaultline --help for usage)')
    .addHelpText('after', EXIT_HELP);
  for (const command of [
    connectCommand(context),
    disconnectCommand(context),
    findCommand(context),
    lsCommand(context),
    getCommand(context),
    readCommand(context),
    runCommand(context),
    injectCommand(context),
    mcpCommand(context),
    cacheCommand(context),
    itemCommand(context),
    generateCommand(context),
  ])
    program.addCommand(command);
  program.addCommand(
    new Command('completion')
      .description('Print a shell completion script (bash, zsh or fish).')
      .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
      .addHelpText(
        'after',
        '\nLoad it:\n  bash: source <(vaultline completion bash)\n  zsh:  source <(vaultline completion zsh)\n  fish: vaultline completion fish | source',
      )
      .action((shell: Shell) => {
        context.output.out(completionScript(program, shell));
      }),
  );
  return program;
}
