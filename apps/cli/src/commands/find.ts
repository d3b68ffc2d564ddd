/**
 * `vaultline find <text>`: items whose label contains the text, among the folders the login may
 * read, with the reference to use. Never a password.
 *
 * @module
 */

import { formatReference, permissionsOf, searchItems } from '@vaultline/protocol';
import { Command } from 'commander';
import { openConnection } from '../connection.ts';
import { type CommandContext, connectionOption, warnTo } from '../context.ts';
import { columns, printable } from '../output.ts';
import { withSpinner } from '../spinner.ts';

/**
 * The `find` command.
 *
 * @param context The environment and output.
 * @returns The command.
 */
export function findCommand(context: CommandContext): Command {
  return new Command('find')
    .description(
      'Find items by label among the folders your login may read; prints ids, paths and references, never passwords.',
    )
    .argument('<text>', 'text the label contains')
    .option('--json', 'print JSON')
    .action(async (text: string, options: { json?: boolean }, command: Command) => {
      const { env, output } = context;
      const connection = await openConnection(env, connectionOption(command), { warn: warnTo(output) });
      let found: Awaited<ReturnType<typeof searchItems>>;
      try {
        found = await withSpinner(
          'Searching…',
          async () => {
            const login = await connection.actingLogin('find');
            const folders = await connection.client.readUserFolders({ login });
            const readable = folders
              .filter((folder) => permissionsOf(folder.accessType).read)
              .map((folder) => folder.id);
            // The core's one search: what the server accepts goes to find/item, the rest is filtered there.
            return searchItems(connection.client, { folderIds: readable, text });
          },
          options,
        );
      } catch (error) {
        throw await connection.explain(error);
      } finally {
        await connection.close();
      }
      const { items, truncated } = found;
      if (truncated)
        output.err('The vault capped the results: some items may be left out; search for more words.');
      const rows = items.map((item) => ({
        id: item.id,
        label: item.label,
        path: item.path,
        folderId: item.folderId,
        login: item.login,
        url: item.url,
        reference: formatReference({ kind: 'id', id: item.id, field: 'password' }),
        ...(connection.name === 'default' ? {} : { connection: connection.name }),
      }));
      if (options.json) {
        output.json(rows);
        return;
      }
      if (rows.length === 0) {
        output.err(`No item label contains ${JSON.stringify(text)}.`);
        return;
      }
      const table = [
        ['ID', 'LABEL', 'PATH', 'LOGIN', 'REFERENCE'],
        ...rows.map((row) => [
          String(row.id),
          printable(row.label),
          printable(row.path.join('/')),
          printable(row.login),
          row.reference,
        ]),
      ];
      output.out(`${columns(table)}\n`);
    });
}
