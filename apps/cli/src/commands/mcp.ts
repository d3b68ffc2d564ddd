/**
 * `vaultline mcp`: a Model Context Protocol server over stdio, for coding assistants (Claude Code,
 * Codex, Cursor, VS Code's agent). Its tools answer with metadata and references, never a value;
 * none runs commands. See docs/mcp.md.
 *
 * @module
 */

import { readFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { EXIT } from '@vaultline/protocol';
import { Command } from 'commander';
import { type Connection, openConnection } from '../connection.ts';
import { type CommandContext, connectionOption } from '../context.ts';
import { CliError } from '../errors.ts';

function version(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return typeof pkg === 'object' && pkg !== null && 'version' in pkg ? String(pkg.version) : '0.0.0';
}

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
    .action(async (options: { root?: string }, command: Command) => {
      const { env, output } = context;
      let root: string;
      try {
        root = await realpath(resolve(options.root ?? process.cwd()));
      } catch {
        throw new CliError('usage', `The root ${JSON.stringify(options.root)} does not exist.`, EXIT.usage);
      }
      // Loaded here: the SDK stays out of every other command's start-up.
      const [{ createMcpServer }, { StdioServerTransport }] = await Promise.all([
        import('../mcp/server.ts'),
        import('@modelcontextprotocol/sdk/server/stdio.js'),
      ]);
      const name = connectionOption(command);
      const opened: Connection[] = [];
      const server = createMcpServer({
        root,
        version: version(),
        connect: async () => {
          const connection = await openConnection(env, name, {
            warn: (message) => output.err(`vaultline mcp: ${message}`),
          });
          opened.push(connection);
          return connection;
        },
        log: (line) => output.err(line),
      });
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((done) => {
        transport.onclose = () => done();
        process.stdin.once('end', () => done());
      });
      await server.connect(transport);
      output.err(`vaultline mcp: serving on stdio, files under ${root}`);
      await closed;
      await server.close().catch(() => undefined);
      // The session token stays cached for the next command, as after any command.
      await Promise.all(opened.map((connection) => connection.close()));
    });
}
