/**
 * What runs for the commands declared in ./command.ts, loaded only when one of them runs.
 *
 * @module
 */

import {
  EXIT,
  formatReference,
  generatePassword,
  type Item,
  type ItemWrite,
  meetsComplexity,
  type ServerCapabilities,
} from '@vaultline/protocol';
import type { Command } from 'commander';
import type { CommandContext } from '../../context.ts';
import { CliError } from '../../errors.ts';
import { readItemsById } from '../../items.ts';
import { printable } from '../../output.ts';
import {
  confirmWrite,
  findFolder,
  type PlacedFolder,
  parseItemId,
  readNewPassword,
  type VaultSession,
  withSession,
} from '../../writing.ts';

/** The item fields given as options (none of them secret). */
interface FieldOptions {
  label?: string;
  login?: string;
  email?: string;
  url?: string;
  description?: string;
  tags?: string;
  anyoneCanModify?: boolean;
}

interface WriteOptions extends FieldOptions {
  folder?: string;
  passwordStdin?: boolean;
  passwordFile?: string;
  generate?: boolean;
  askPassword?: boolean;
  yes?: boolean;
  json?: boolean;
}

function fieldChanges(options: FieldOptions): Partial<ItemWrite> {
  const changes: Partial<ItemWrite> = {};
  if (options.label !== undefined) changes.label = options.label;
  if (options.login !== undefined) changes.login = options.login;
  if (options.email !== undefined) changes.email = options.email;
  if (options.url !== undefined) changes.url = options.url;
  if (options.description !== undefined) changes.description = options.description;
  if (options.tags !== undefined) changes.tags = options.tags;
  if (options.anyoneCanModify) changes.anyoneCanModify = true;
  return changes;
}

function checkLabel(label: string | undefined): void {
  if (label !== undefined && label.trim() === '')
    throw new CliError('invalid_label', 'Expected a non-empty --label.', EXIT.usage);
}

/** The new password, from the one source the options name (or a prompt), checked against the folder's rule. */
async function newPassword(
  options: WriteOptions,
  folder: PlacedFolder,
  ask: boolean,
  warn: (message: string) => void,
): Promise<string | undefined> {
  const sources = [options.passwordStdin, options.passwordFile !== undefined, options.generate].filter(
    Boolean,
  );
  if (sources.length > 1)
    throw new CliError('usage', 'Give one of --password-stdin, --password-file and --generate.', EXIT.usage);
  const level = folder.folder.complexityLevel;
  if (options.generate) return generatePassword({ complexityLevel: level });
  const password = await readNewPassword(options, ask);
  if (password !== undefined && level !== undefined && !meetsComplexity(password, level))
    warn(
      `The password is weaker than the rule of ${JSON.stringify(printable(folder.path.join('/')))} (complexity level ${level}); --generate makes one that meets it.`,
    );
  return password;
}

function shown(
  session: VaultSession,
  item: { id: number; label: string; folderId: number },
  path: readonly string[],
) {
  return {
    id: item.id,
    label: item.label,
    folderId: item.folderId,
    path: [...path],
    reference: formatReference({ kind: 'id', id: item.id, field: 'password' }),
    ...(session.connection.name === 'default' ? {} : { connection: session.connection.name }),
  };
}

/** Reads items by id: every id must exist and be readable by the key. */
async function readExisting(session: VaultSession, ids: readonly number[]): Promise<Item[]> {
  const { found: byId, missing } = await readItemsById(session.connection.client, ids);
  if (missing.length > 0)
    throw new CliError(
      'not_found',
      `No item ${missing.join(', ')} that ${session.login} may read.`,
      EXIT.reference,
    );
  return ids.map((id) => byId.get(id)!);
}

function folderOf(folders: readonly PlacedFolder[], item: Item, login: string): PlacedFolder {
  const placed = folders.find((candidate) => candidate.folder.id === item.folderId);
  if (placed) return placed;
  // The key could read it, the login has no right on its folder: as if it did not exist.
  throw new CliError('not_found', `No item ${item.id} that ${login} may read.`, EXIT.reference);
}

/** What `create` does. */
export const createAction = (context: CommandContext) => async (options: WriteOptions, command: Command) => {
  checkLabel(options.label);
  const warn = (message: string) => context.output.err(`vaultline: ${message}`);
  const created = await withSession(context, command, 'item create', async (session) => {
    const folder = findFolder(await session.folders(), options.folder!, session.login);
    await session.require(folder, 'add');
    const password = await newPassword(options, folder, true, warn);
    if (password === undefined)
      throw new CliError(
        'no_password',
        'A new item needs a password: --password-stdin, --password-file or --generate (or run it on a terminal to be asked).',
        EXIT.usage,
      );
    await confirmWrite(
      `Create ${JSON.stringify(printable(options.label!))} in ${JSON.stringify(printable(folder.path.join('/')))}`,
      options.yes,
    );
    const item: ItemWrite = {
      ...fieldChanges(options),
      label: options.label!,
      password,
      folderId: folder.folder.id,
    };
    const { id } = await session.connection.client.items.create(item);
    return shown(session, { id, label: item.label, folderId: folder.folder.id }, folder.path);
  });
  if (options.json) context.output.json({ created });
  else context.output.out(`Created item ${created.id}: ${created.reference}\n`);
};

/** What `edit` does. */
export const editAction =
  (context: CommandContext) => async (idText: string, options: WriteOptions, command: Command) => {
    const id = parseItemId(idText);
    checkLabel(options.label);
    const warn = (message: string) => context.output.err(`vaultline: ${message}`);
    const edited = await withSession(context, command, 'item edit', async (session) => {
      const [item] = await readExisting(session, [id]);
      const folders = await session.folders();
      const from = folderOf(folders, item!, session.login);
      await session.require(from, 'edit', id);
      const changes = fieldChanges(options);
      let to = from;
      if (options.folder !== undefined) {
        to = findFolder(folders, options.folder, session.login);
        if (to.folder.id !== from.folder.id) {
          await session.require(to, 'add');
          changes.folderId = to.folder.id;
        }
      }
      const wantsPassword =
        options.passwordStdin ||
        options.passwordFile !== undefined ||
        options.generate ||
        options.askPassword;
      if (
        options.askPassword &&
        (options.passwordStdin || options.passwordFile !== undefined || options.generate)
      )
        throw new CliError('usage', 'Give one way to set the password.', EXIT.usage);
      if (wantsPassword) {
        const password = await newPassword(options, to, options.askPassword === true, warn);
        if (password === undefined)
          throw new CliError(
            'usage',
            '--ask-password needs a terminal; in a script use --password-stdin or --password-file.',
            EXIT.usage,
          );
        changes.password = password;
      }
      if (Object.keys(changes).length === 0)
        throw new CliError(
          'usage',
          'Nothing to change: give --label, --login, --email, --url, --description, --tags, --folder or a new password.',
          EXIT.usage,
        );
      const capabilities = await session.connection.client.capabilities();
      const warning = editWarning(capabilities.editTags, changes);
      if (warning !== undefined) warn(warning);
      const changed = Object.keys(changes)
        .map((name) => (name === 'folderId' ? 'folder' : name))
        .join(', ');
      await confirmWrite(
        `Change ${changed} of item ${id} ${JSON.stringify(printable(item!.label))} in ${JSON.stringify(printable(from.path.join('/')))}`,
        options.yes,
      );
      await session.connection.client.items.update(id, changes);
      return {
        ...shown(session, { id, label: changes.label ?? item!.label, folderId: to.folder.id }, to.path),
        changed: changed.split(', '),
      };
    });
    if (options.json) context.output.json({ edited });
    else
      context.output.out(`Changed ${edited.changed.join(', ')} of item ${edited.id}: ${edited.reference}\n`);
  };

/** What `delete` does. */
export const deleteAction =
  (context: CommandContext) => async (idTexts: string[], options: WriteOptions, command: Command) => {
    const ids = [...new Set(idTexts.map((text) => parseItemId(text)))];
    const deleted = await withSession(context, command, 'item delete', async (session) => {
      const items = await readExisting(session, ids);
      const folders = await session.folders();
      const rows: ReturnType<typeof shown>[] = [];
      for (const item of items) {
        const folder = folderOf(folders, item, session.login);
        await session.require(folder, 'delete', item.id);
        rows.push(shown(session, item, folder.path));
      }
      const names = rows.map((row) => `${row.id} ${JSON.stringify(printable(row.label))}`).join(', ');
      await confirmWrite(
        `Delete ${rows.length === 1 ? 'item' : `${rows.length} items:`} ${names}`,
        options.yes,
      );
      await session.connection.client.items.delete(ids);
      return rows;
    });
    if (options.json) context.output.json({ deleted });
    else context.output.out(`Deleted ${deleted.map((row) => `item ${row.id}`).join(', ')}.\n`);
  };

/** What an edit is warned of, as the vault's capability says it treats what the change leaves out. */
export function editWarning(
  editTags: ServerCapabilities['editTags'],
  changes: Pick<Partial<ItemWrite>, 'tags' | 'anyoneCanModify'>,
): string | undefined {
  const anyone = changes.anyoneCanModify === undefined;
  switch (editTags) {
    case 'kept':
      return undefined;
    case 'added':
      return anyone
        ? 'This vault sets "anyone can modify" to what an edit sends: the edit turns it off unless --anyone-can-modify is given. The item keeps its tags (those given with --tags are added).'
        : undefined;
    case 'replaced':
      return changes.tags === undefined
        ? 'This vault does not return tags when read: the edit leaves the item without tags (and "anyone can modify" off) unless --tags (and --anyone-can-modify) are given.'
        : undefined;
  }
}
