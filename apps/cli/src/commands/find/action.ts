/**
 * What runs for the commands declared in ./command.ts, loaded only when one of them runs.
 *
 * @module
 */

import {
  EXIT,
  foldLabel,
  formatReference,
  type Item,
  permissionsOf,
  type VaultClient,
} from '@vaultline/protocol';
import type { Command } from 'commander';
import type { CommandContext } from '../../context.ts';
import { CliError } from '../../errors.ts';
import { readItemsById } from '../../items.ts';
import { columns, printable } from '../../output.ts';
import { withConnection } from '../../reach.ts';
import { withSpinner } from '../../spinner.ts';

/** What `find` does. */
export const findAction =
  (context: CommandContext) =>
  async (words: string[], options: { json?: boolean; tag?: string; url?: string }, command: Command) => {
    const { output } = context;
    const text = words.join(' ');
    if (text.trim() === '' && options.tag === undefined && options.url === undefined)
      throw new CliError('usage', 'Give words to find, --tag or --url.', EXIT.usage);
    if (options.tag?.trim() === '' || options.url?.trim() === '')
      throw new CliError('usage', 'Expected a non-empty --tag or --url.', EXIT.usage);
    const { name, found } = await withConnection(context, command, async (connection) => ({
      name: connection.name,
      found: await withSpinner(
        'Searching…',
        async () => {
          // A login is needed to know the readable folders: the CLI's own words when there is none.
          await connection.actingLogin('find');
          const folders = await connection.client.folders.list();
          const readable = folders
            .filter((folder) => permissionsOf(folder.accessType).read)
            .map((folder) => folder.id);
          return findItems(connection.client, readable, text, options);
        },
        options,
      ),
    }));
    const { items, truncated } = found;
    if (truncated)
      output.err('The vault capped the results: some items may be left out; search for more words.');
    const rows = items.map((item) => ({
      ...item,
      reference: formatReference({ kind: 'id', id: item.id, field: 'password' }),
      ...(name === 'default' ? {} : { connection: name }),
    }));
    if (options.json) {
      output.json(rows);
      return;
    }
    if (rows.length === 0) {
      const asked = [
        text.trim() === ''
          ? undefined
          : `every word of ${JSON.stringify(text)} in its label, login, URL or folder path`,
        options.tag === undefined ? undefined : `the tag ${JSON.stringify(options.tag)}`,
        options.url === undefined ? undefined : `${JSON.stringify(options.url)} in its URL`,
      ].filter((part) => part !== undefined);
      output.err(`No item has ${asked.join(' and ')}.`);
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
  };

/** What find lists of an item: never its password. */
interface Listed {
  id: number;
  label: string;
  path: string[];
  folderId: number;
  login: string;
  url: string;
  tags?: string[] | undefined;
}

function listed(item: Item): Listed {
  return {
    id: item.id,
    label: item.label,
    path: item.path,
    folderId: item.folderId,
    login: item.login,
    url: item.url,
    ...(item.tags === undefined ? {} : { tags: item.tags }),
  };
}

/**
 * The items of the readable folders that match: words through the core's one search; a URL
 * through the vault's URL lookup where it has one (`urlLookup`), else among the folders' items; a
 * tag where the vault returns tags (`tags`), refused clearly elsewhere.
 */
async function findItems(
  client: VaultClient,
  readable: readonly number[],
  text: string,
  options: { tag?: string | undefined; url?: string | undefined },
): Promise<{ items: Listed[]; truncated: boolean }> {
  const capabilities = await client.capabilities();
  if (options.tag !== undefined && !capabilities.tags)
    throw new CliError(
      'unsupported',
      'This vault does not return tags when items are read, so find --tag cannot look them up; search by words instead.',
      EXIT.error,
    );
  const folders = new Set(readable);
  let items: Listed[];
  let truncated = false;
  if (text.trim() !== '') {
    const found = await client.items.search(text, { folderIds: readable });
    items = found.items.map(listed);
    truncated = found.truncated;
  } else if (options.url !== undefined && capabilities.urlLookup && options.tag === undefined) {
    items = [];
    const matches = await client.items.findByUrl(options.url);
    const paths = await folderPaths(
      client,
      matches.filter((match) => folders.has(match.folderId)).map((match) => match.id),
    );
    for (const match of matches) {
      if (!folders.has(match.folderId)) continue;
      items.push({
        id: match.id,
        label: match.label,
        path: paths.get(match.id) ?? [],
        folderId: match.folderId,
        login: match.login,
        url: match.url,
      });
    }
    return { items, truncated };
  } else {
    items = readable.length === 0 ? [] : (await client.items.list(readable).all()).map(listed);
  }
  items = items.filter((item) => folders.has(item.folderId));
  if (options.tag !== undefined) {
    const tag = foldLabel(options.tag);
    items = items.filter((item) => (item.tags ?? []).some((candidate) => foldLabel(candidate) === tag));
  }
  if (options.url !== undefined) {
    if (capabilities.urlLookup) {
      const ids = new Set((await client.items.findByUrl(options.url)).map((match) => match.id));
      items = items.filter((item) => ids.has(item.id));
    } else {
      const wanted = options.url.toLowerCase();
      items = items.filter((item) => item.url.toLowerCase().includes(wanted));
    }
  }
  return { items, truncated };
}

/**
 * The folder paths of items found by URL in readable folders (the lookup answers no path): one
 * read of their ids; an item that went missing meanwhile has no path.
 */
async function folderPaths(client: VaultClient, ids: readonly number[]): Promise<Map<number, string[]>> {
  if (ids.length === 0) return new Map();
  const { found } = await readItemsById(client, ids);
  return new Map([...found.values()].map((item) => [item.id, item.path]));
}
