/**
 * What runs for the commands declared in ./command.ts, loaded only when one of them runs.
 *
 * @module
 */

import { describeRight, formatReference } from '@vaultline/protocol';
import type { Command } from 'commander';
import type { CommandContext } from '../../context.ts';
import { columns, printable } from '../../output.ts';
import { withSpinner } from '../../spinner.ts';
import { findFolder, withSession } from '../../writing.ts';

/** What `ls` does. */
export const lsAction =
  (context: CommandContext) =>
  async (folderText: string | undefined, options: { json?: boolean }, command: Command) => {
    const { output } = context;
    if (folderText === undefined) {
      const placed = await withSpinner(
        'Reading folders…',
        () => withSession(context, command, 'ls', (session) => session.folders()),
        options,
      );
      const rows = placed.map(({ folder, path }) => ({
        id: folder.id,
        path: path.join('/'),
        right: folder.accessType,
        rightWords: describeRight(folder.accessType),
        personal: folder.personal,
        complexityLevel: folder.complexityLevel,
      }));
      if (options.json) {
        output.json(rows);
        return;
      }
      if (rows.length === 0) {
        output.err('Your login may access no folder.');
        return;
      }
      output.out(
        `${columns([
          ['ID', 'PATH', 'RIGHT'],
          ...rows.map((row) => [String(row.id), printable(row.path), row.rightWords]),
        ])}\n`,
      );
      return;
    }
    const { folder, items } = await withSpinner(
      'Reading the folder…',
      () =>
        withSession(context, command, 'ls', async (session) => {
          const folder = findFolder(await session.folders(), folderText, session.login);
          await session.require(folder, 'read');
          const id = folder.folder.id;
          const read = await session.connection.client.items.list(id).all();
          // Only the fields shown are kept: the passwords go no further than this line.
          const items = read
            .filter((item) => item.folderId === id)
            .map((item) => ({
              id: item.id,
              label: item.label,
              login: item.login,
              url: item.url,
              ...(item.tags === undefined ? {} : { tags: item.tags }),
              reference: formatReference({ kind: 'id', id: item.id, field: 'password' }),
            }));
          return { folder, items };
        }),
      options,
    );
    if (options.json) {
      output.json({
        folder: { id: folder.folder.id, path: folder.path.join('/'), right: folder.folder.accessType },
        items,
      });
      return;
    }
    if (items.length === 0) {
      output.err(`The folder ${JSON.stringify(printable(folder.path.join('/')))} holds no item.`);
      return;
    }
    output.out(
      `${columns([
        ['ID', 'LABEL', 'LOGIN', 'URL', 'REFERENCE'],
        ...items.map((item) => [
          String(item.id),
          printable(item.label),
          printable(item.login),
          printable(item.url),
          item.reference,
        ]),
      ])}\n`,
    );
  };
