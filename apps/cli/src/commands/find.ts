/**
 * `vaultline find <words>`: items with every word in their label, login, URL or folder path, among
 * the folders the login may read, best first (the core's ranking), with the reference to use.
 * Never a password.
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
      'Find items among the folders your login may read by words in their label, login, URL or folder path, best first; prints ids, paths and references, never passwords.',
    )
    .argument('<words...>', 'words to find, in any order')
    .option('--json', 'print JSON')
    .action(async (words: string[], options: { json?: boolean }, command: Command) => {
      const { env, output } = context;
      const text = words.join(' ');
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
            // The core's one search: words across fields, ranked; the server's limits are its business.
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
        output.err(
          `No item has every word of ${JSON.stringify(text)} in its label, login, URL or folder path.`,
        );
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
