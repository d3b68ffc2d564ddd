/**
 * `vaultline mcp`: a Model Context Protocol server over stdio, for coding assistants (Claude Code,
 * Codex, Cursor, VS Code's agent). Its tools answer with metadata and references, never a value;
 * none runs commands. See docs/mcp.md.
 *
 * @module
 */

import { Command } from 'commander';
import { type CommandContext, lazy } from '../../context.ts';

/**
 * The `mcp` command.
 *
 * @param context The environment and output.
 * @returns The command.
 */
export function mcpCommand(context: CommandContext): Command {
  return new Command('mcp')
    .description(
      'Serve coding assistants over MCP (stdio): search items, list folders, give and check references, move a secret from a file into the vault. Never returns a value; runs no commands.',
    )
    .option(
      '--root <dir>',
      'the directory whose files the tools may read and write (default: the current one)',
    )
    .addHelpText(
      'after',
      '\nAdd it to an assistant, e.g. Claude Code: claude mcp add vaultline -- vaultline mcp\nThe tools, what they return and the threat model: docs/mcp.md in the Vaultline repository.',
    )
    .action(lazy(context, async () => (await import('./action.ts')).mcpAction));
}
