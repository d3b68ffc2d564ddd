/**
 * What runs for the commands declared in ./command.ts, loaded only when one of them runs.
 *
 * @module
 */

import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { EXIT } from '@vaultline/protocol';
import type { Command } from 'commander';
import { type Connection, openConnection } from '../../connection.ts';
import { type CommandContext, connectionOption } from '../../context.ts';
import { CliError } from '../../errors.ts';
import { forgetOidcKey, hasOidcToken } from '../../oidc-key.ts';

/** What `mcp` does. */
export const mcpAction =
  (context: CommandContext) => async (options: { root?: string }, command: Command) => {
    const { env, output } = context;
    let root: string;
    try {
      root = await realpath(resolve(options.root ?? process.cwd()));
    } catch {
      throw new CliError('usage', `The root ${JSON.stringify(options.root)} does not exist.`, EXIT.usage);
    }
    // Loaded here: the SDK stays out of every other command's start-up.
    const [{ createMcpServer }, { StdioServerTransport }] = await Promise.all([
      import('../../mcp/server.ts'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
    ]);
    const name = connectionOption(command);
    const opened: Connection[] = [];
    const server = createMcpServer({
      root,
      // The program's version (this module is a chunk of the bundle: no path to package.json here).
      version: command.parent?.version() ?? '0.0.0',
      connect: async ({ fresh }) => {
        if (fresh && env.url !== undefined && hasOidcToken(env)) await forgetOidcKey(env, env.url);
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
  };
