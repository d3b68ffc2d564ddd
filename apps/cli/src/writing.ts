/**
 * What the commands that list and write (`ls`, `item`, `generate`) share: a folder named by id or
 * path among those the acting login may access, what it may do there (the core's access checker),
 * item ids checked before anything is sent, a new secret from stdin, a file or a prompt without
 * echo (never from an argument: argv shows in `ps`), and the confirmation a write asks on a
 * terminal (`--yes` elsewhere).
 *
 * @module
 */

import { createReadStream } from 'node:fs';
import {
  createAccessChecker,
  decodeId,
  EXIT,
  type Folder,
  foldLabel,
  type Permissions,
} from '@vaultline/protocol';
import type { Command } from 'commander';
import type { Connection } from './connection.ts';
import type { CommandContext } from './context.ts';
import { CliError } from './errors.ts';
import { printable } from './output.ts';
import { askChoice, askSecret, canAsk } from './prompt.ts';
import { withConnection } from './reach.ts';

/** A folder the login may access, with its path from the root. */
export interface PlacedFolder {
  /** The folder. */
  readonly folder: Folder;
  /** Its titles from the root down. */
  readonly path: readonly string[];
}

/**
 * The paths of a login's folders: by parent id where the server sends one, else by level in the
 * server's order (TeamPass lists a tree depth first).
 *
 * @param folders The folders, as read/userfolders answers them.
 * @returns Each folder with its path, in the same order.
 */
export function placeFolders(folders: readonly Folder[]): PlacedFolder[] {
  const byId = new Map(folders.map((folder) => [folder.id, folder]));
  const stack: Folder[] = [];
  const placed: PlacedFolder[] = [];
  for (const folder of folders) {
    while (stack.length > 0 && stack.at(-1)!.level >= folder.level) stack.pop();
    let path: string[];
    if (folder.parentId !== undefined) {
      path = [folder.title];
      const seen = new Set([folder.id]);
      for (let parent = byId.get(folder.parentId); parent && !seen.has(parent.id); ) {
        seen.add(parent.id);
        path.unshift(parent.title);
        parent = parent.parentId === undefined ? undefined : byId.get(parent.parentId);
      }
    } else {
      path = [...stack.map((parent) => parent.title), folder.title];
    }
    stack.push(folder);
    placed.push({ folder, path });
  }
  return placed;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Finds a folder by id (`7`) or path (`Engineering/Databases`, titles compared exactly, then
 * without case or accents; `%2F` for a `/` in a title) among a login's folders.
 *
 * @param folders The login's folders, placed.
 * @param text The id or path.
 * @param login The login, for the message.
 * @returns The folder.
 * @throws {CliError} `unknown_folder` (exit 3) when none matches; `ambiguous_folder` (exit 3)
 *   when several do.
 */
export function findFolder(folders: readonly PlacedFolder[], text: string, login: string): PlacedFolder {
  const shown = JSON.stringify(printable(text.slice(0, 80)));
  if (/^[0-9]+$/.test(text)) {
    const id = parseItemId(text, 'a folder id');
    const found = folders.find((placed) => placed.folder.id === id);
    if (found) return found;
    throw new CliError(
      'unknown_folder',
      `No folder with id ${id} among the folders ${login} may access (run vaultline ls to list them).`,
      EXIT.reference,
    );
  }
  const wanted = text
    .split('/')
    .filter((segment) => segment !== '')
    .map(decodeSegment);
  if (wanted.length === 0)
    throw new CliError('invalid_folder', `Expected a folder id or path, received ${shown}.`, EXIT.usage);
  const exact = folders.filter(
    (placed) =>
      placed.path.length === wanted.length &&
      placed.path.every((title, i) => title.trim() === wanted[i]!.trim()),
  );
  const matches =
    exact.length > 0
      ? exact
      : folders.filter(
          (placed) =>
            placed.path.length === wanted.length &&
            placed.path.every((title, i) => foldLabel(title) === foldLabel(wanted[i]!)),
        );
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0)
    throw new CliError(
      'unknown_folder',
      `No folder ${shown} among the folders ${login} may access (run vaultline ls to list them).`,
      EXIT.reference,
    );
  throw new CliError(
    'ambiguous_folder',
    `${matches.length} folders match ${shown} (ids ${matches.map((placed) => placed.folder.id).join(', ')}): give the id.`,
    EXIT.reference,
  );
}

/** What a permission lets one do, in the words of a refusal. */
const DOING: Readonly<Record<keyof Permissions, string>> = {
  read: 'read its items',
  add: 'add items to it',
  edit: 'edit its items',
  delete: 'delete its items',
};

function refusal(
  placed: PlacedFolder,
  permission: keyof Permissions,
  login: string,
  words: string,
): CliError {
  return new CliError(
    'forbidden',
    `${login} may not ${DOING[permission]} in ${JSON.stringify(printable(placed.path.join('/')))}: the right there is "${words}". A vault administrator sets folder rights.`,
    EXIT.auth,
  );
}

/**
 * Parses an id given on the command line.
 *
 * @param text The argument.
 * @param what What it names, for the message (`an item id`).
 * @returns The id.
 * @throws {CliError} `invalid_id` (exit 2).
 */
export function parseItemId(text: string, what = 'an item id'): number {
  try {
    if (!/^[0-9]+$/.test(text)) throw new Error('not digits');
    return decodeId(text);
  } catch {
    throw new CliError(
      'invalid_id',
      `Expected ${what} (a positive whole number), received ${JSON.stringify(printable(text.slice(0, 40)))}.`,
      EXIT.usage,
    );
  }
}

/** The largest secret value read from stdin or a file. */
export const MAX_SECRET_BYTES = 16 * 1024;

/** Where a new secret value comes from. */
export interface SecretSource {
  /** Read it from stdin (all of it, one final newline dropped). */
  passwordStdin?: boolean | undefined;
  /** Read it from this file (one final newline dropped). */
  passwordFile?: string | undefined;
}

function withoutFinalNewline(text: string): string {
  return text.replace(/\r?\n$/, '');
}

async function readLimited(chunks: AsyncIterable<Buffer | string>, where: string): Promise<string> {
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of chunks) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += bytes.length;
    if (total > MAX_SECRET_BYTES)
      throw new CliError(
        'too_large',
        `The password from ${where} is longer than ${MAX_SECRET_BYTES} bytes.`,
        EXIT.usage,
      );
    parts.push(bytes);
  }
  return withoutFinalNewline(Buffer.concat(parts).toString('utf8'));
}

/**
 * Reads a new password from where the options say: stdin, a file, or (on a terminal, when
 * `ask`) a prompt without echo, typed twice.
 *
 * @param source The options.
 * @param ask Whether to ask on a terminal when neither stdin nor a file was named.
 * @returns The password, or `undefined` when none was asked for.
 * @throws {CliError} `usage` (exit 2) for both sources at once or an empty value.
 */
export async function readNewPassword(source: SecretSource, ask: boolean): Promise<string | undefined> {
  if (source.passwordStdin && source.passwordFile !== undefined)
    throw new CliError('usage', 'Give --password-stdin or --password-file, not both.', EXIT.usage);
  let password: string | undefined;
  if (source.passwordStdin) {
    if (process.stdin.isTTY)
      throw new CliError(
        'usage',
        '--password-stdin reads a pipe (printf %s "$PASS" | vaultline …); on a terminal, leave it out to be asked.',
        EXIT.usage,
      );
    password = await readLimited(process.stdin, 'stdin');
  } else if (source.passwordFile !== undefined) {
    try {
      password = await readLimited(createReadStream(source.passwordFile), source.passwordFile);
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new CliError(
        'unreadable_file',
        `Cannot read the password file ${JSON.stringify(source.passwordFile)}: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`,
        EXIT.usage,
        { cause: error },
      );
    }
  } else if (ask && canAsk()) {
    password = await askSecret('New password (not shown): ', 'password');
    const again = await askSecret('The same again: ', 'password');
    if (again !== password)
      throw new CliError('usage', 'The two passwords differ; nothing was sent.', EXIT.usage);
  } else {
    return undefined;
  }
  if (password === '') throw new CliError('empty_secret', 'The password given is empty.', EXIT.usage);
  return password;
}

/**
 * Confirms a write: with `--yes`, at once; on a terminal, by asking; elsewhere it refuses, so a
 * script never writes by accident.
 *
 * @param what What is about to happen, e.g. `Delete item 42 "db"`.
 * @param yes Whether --yes was given.
 * @throws {CliError} `confirmation_needed` (exit 2) without a terminal and without --yes;
 *   `cancelled` (exit 1) when the answer is no.
 */
export async function confirmWrite(what: string, yes: boolean | undefined): Promise<void> {
  if (yes) return;
  if (!canAsk() || process.stderr.isTTY !== true) {
    throw new CliError(
      'confirmation_needed',
      `${what}: not on a terminal, so nothing was asked and nothing was written. Add --yes to write without asking (CI).`,
      EXIT.usage,
    );
  }
  const answer = await askChoice(`${what}? [y/N] `, ['y', 'Y', 'yes', 'n', 'N', 'no', '']);
  if (!['y', 'Y', 'yes'].includes(answer))
    throw new CliError('cancelled', 'Nothing was written.', EXIT.error);
}

/** An open connection, the login it acts for, and that login's folders (read once, when asked). */
export interface VaultSession {
  /** The connection. */
  readonly connection: Connection;
  /** The login the command acts for. */
  readonly login: string;
  /** The login's folders with their paths: one read/userfolders, no secrets. */
  folders(): Promise<PlacedFolder[]>;
  /**
   * Fails unless the core's access checker lets the login do something in a folder (to an item
   * there): its rights table, on the rights read/userfolders reports.
   *
   * @param placed The folder.
   * @param permission What is about to be done.
   * @param itemId The item it is done to, for edit and delete.
   * @throws {CliError} `forbidden` (exit 4), naming the right.
   */
  require(placed: PlacedFolder, permission: keyof Permissions, itemId?: number): Promise<void>;
}

/**
 * Opens the command's connection, finds the login it acts for, runs the work and closes the
 * connection (the session token stays cached); a refusal gets the connection's words.
 *
 * @param context The environment and output.
 * @param command The running command (for --connection).
 * @param what What needs a login, for the message.
 * @param work The work.
 * @returns What the work returned.
 */
export async function withSession<T>(
  context: CommandContext,
  command: Command,
  what: string,
  work: (session: VaultSession) => Promise<T>,
): Promise<T> {
  return withConnection(context, command, async (connection) => {
    const login = await connection.actingLogin(what);
    const access = createAccessChecker(connection.client);
    let placed: Promise<PlacedFolder[]> | undefined;
    return await work({
      connection,
      login,
      folders: () => {
        placed ??= access.folders(login).then(placeFolders);
        return placed;
      },
      async require(folder, permission, itemId) {
        const folderId = folder.folder.id;
        const item = { id: itemId ?? 0, folderId };
        const allowed =
          permission === 'add'
            ? await access.canAdd(login, folderId)
            : permission === 'edit'
              ? await access.canWrite(login, item)
              : permission === 'delete'
                ? await access.canDelete(login, item)
                : (await access.rightOn(login, folderId)).read;
        if (!allowed) throw refusal(folder, permission, login, (await access.rightOn(login, folderId)).words);
      },
    });
  });
}
