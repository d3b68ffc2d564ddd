/**
 * What runs for the commands declared in ./command.ts, loaded only when one of them runs.
 *
 * @module
 */

import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { EXIT } from '@vaultline/protocol';
import type { Command } from 'commander';
import { type CommandContext, connectionOption } from '../../context.ts';
import { CliError } from '../../errors.ts';
import { forgetOidcKey, hasOidcToken } from '../../oidc-key.ts';
import { reach } from '../../reach.ts';

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
    // The connections live as long as the server: opened on the first tool call, again for a key
    // that expires, all closed when the client goes.
    const vault = reach(env, (message) => output.err(`vaultline mcp: ${message}`));
    const server = createMcpServer({
      root,
      // The program's version (this module is a chunk of the bundle: no path to package.json here).
      version: command.parent?.version() ?? '0.0.0',
      connect: async ({ fresh }) => {
        if (fresh && env.url !== undefined && hasOidcToken(env)) await forgetOidcKey(env, env.url);
        return vault.open(name);
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
    await vault.close();
  };
