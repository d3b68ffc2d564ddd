/**
 * The command tree of `vaultline-server`: wiring only, each command in `commands/<name>.ts`, with the
 * help commander generates.
 *
 * @module
 */

import { EXIT } from '@vaultline/protocol';
import { Command } from 'commander';
import { auditCommand } from './commands/audit.ts';
import { demoCommand } from './commands/demo.ts';
import { importCommand } from './commands/import.ts';
import { keysCommand } from './commands/keys.ts';
import { grantCommand, revokeCommand } from './commands/rights.ts';
import { rolesCommand } from './commands/roles.ts';
import { rotateMasterKeyCommand } from './commands/rotate-master-key.ts';
import { quickstartCommand, startCommand } from './commands/start.ts';
import { trustCommand } from './commands/trust.ts';
import { upstreamCommand } from './commands/upstream.ts';
import { usersCommand } from './commands/users.ts';
import type { CliContext } from './context.ts';
import { printable } from './output.ts';

const ENVIRONMENT_HELP = `
Environment: VAULTLINE_HOST, VAULTLINE_PORT (7700), VAULTLINE_DATA_DIR (./.data/vault), DATABASE_URL,
VAULTLINE_MASTER_KEY, VAULTLINE_MAX_URL_LENGTH, VAULTLINE_MAX_FILE_BYTES, VAULTLINE_RATE_LIMIT_PER_MINUTE,
VAULTLINE_FAILED_KEY_LIMIT, VAULTLINE_TRUSTED_PROXIES, VAULTLINE_LOG_LEVEL, VAULTLINE_CACHE_TTL_MS,
VAULTLINE_UPSTREAM_URL (upstream mode: serve this TeamPass's items),
VAULTLINE_MEMORY_TUNING (on|off: re-execute a server on PGlite with its memory settings).
Exit codes: ${EXIT.ok} ok, ${EXIT.error} error, ${EXIT.usage} usage.`;

/** Gives a command, and the commands under it, the settings of its parent: output, exit, help. */
function inherit(parent: Command, command: Command): void {
  command.copyInheritedSettings(parent);
  for (const sub of command.commands) inherit(command, sub);
}

/**
 * Builds the command tree.
 *
 * @param context Where output goes, and how a command says it left a server running.
 * @returns The root command; it throws a `CommanderError` where commander would exit.
 */
export function createProgram(context: CliContext): Command {
  const { io } = context;
  const program = new Command('vaultline-server')
    .description('The Vaultline vault server and its administration.')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: (text) => io.err(printable(text)) })
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', ENVIRONMENT_HELP);
  for (const command of [
    startCommand(context),
    quickstartCommand(context),
    demoCommand(context),
    keysCommand(context),
    trustCommand(context),
    upstreamCommand(context),
    usersCommand(context),
    rolesCommand(context),
    grantCommand(context),
    revokeCommand(context),
    auditCommand(context),
    importCommand(context),
    rotateMasterKeyCommand(context),
  ]) {
    program.addCommand(command);
    inherit(program, command);
  }
  return program;
}
