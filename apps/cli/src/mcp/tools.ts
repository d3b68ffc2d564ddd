/**
 * What the MCP tools do, host-free of MCP itself: each takes the connection and its input and
 * returns an answer of metadata and references. No tool reads a value into its answer: search
 * drops passwords (and never reads a one-time code), references are checked without their values
 * (`checkReferences`), and the one tool that handles a secret (`storeSecret`) reads it from a file
 * and hands it only to the vault. Vault text goes through {@link untrusted}, inside `data`.
 *
 * @module
 */

import {
  checkReferences,
  type Folder,
  findReferences,
  formatReference,
  isVaultError,
  meetsComplexity,
  OTP_FIELD,
  permissionsOf,
  REFERENCE_FIELDS,
  type Reference,
  type ReferenceCheck,
  type ReferenceField,
  referenceToItem,
  requiredBits,
  type VaultError,
} from '@vaultline/protocol';
import type { Connection } from '../connection.ts';
import { CliError } from '../errors.ts';
import { ToolFailure } from './failure.ts';
import { type HeldTextFile, openTextFile, readTextFile, replaceTextFile } from './files.ts';
import { UNTRUSTED_NOTICE, untrusted, untrustedUrl } from './untrusted.ts';

/** What every tool works with. */
export interface ToolContext {
  /** The connection (the CLI's: environment or keychain). */
  readonly connection: Connection;
  /** The directory files are read and written under (a real path). */
  readonly root: string;
}

/** An answer: plain JSON. */
export type Answer = Record<string, unknown>;

/** The fields `get_reference` accepts, besides `file:<name>`. */
export const FIELD_NAMES = [...REFERENCE_FIELDS, OTP_FIELD] as const;

/** The most results `search_items` returns. */
export const MAX_SEARCH_RESULTS = 50;

/** The folders the acting user may access; the CLI's words when no login is known. */
async function userFolders(context: ToolContext): Promise<Folder[]> {
  await context.connection.actingLogin('this tool');
  return context.connection.client.folders.list();
}

/** Each folder's path of titles, root first, from the parents among the user's folders. */
function folderPaths(folders: readonly Folder[]): Map<number, string[]> {
  const byId = new Map(folders.map((folder) => [folder.id, folder]));
  const paths = new Map<number, string[]>();
  for (const folder of folders) {
    const path: string[] = [];
    let current: Folder | undefined = folder;
    const seen = new Set<number>();
    while (current && !seen.has(current.id)) {
      seen.add(current.id);
      path.unshift(current.title);
      current = current.parentId === undefined ? undefined : byId.get(current.parentId);
    }
    paths.set(folder.id, path);
  }
  return paths;
}

/**
 * `search_items`: items the user may read with every word in their label, login, URL or folder
 * path, best first. Never a password, a one-time code, a description or an email.
 */
export async function searchTool(
  context: ToolContext,
  input: { words: string; limit?: number | undefined },
): Promise<Answer> {
  const folders = await userFolders(context);
  const readable = folders
    .filter((folder) => permissionsOf(folder.accessType).read)
    .map((folder) => folder.id);
  const limit = input.limit ?? 20;
  const found =
    readable.length === 0
      ? { items: [], truncated: false }
      : await context.connection.client.items.search(input.words, { folderIds: readable });
  const items = found.items.slice(0, limit).map((item) => ({
    id: item.id,
    reference: formatReference({ kind: 'id', id: item.id, field: 'password' }),
    hasOneTimeCode: item.otp ?? null,
    folderId: item.folderId,
    data: {
      label: untrusted(item.label),
      folderPath: item.path.map(untrusted),
      login: untrusted(item.login),
      url: untrustedUrl(item.url),
      tags: (item.tags ?? []).slice(0, 20).map(untrusted),
    },
  }));
  return {
    notice: UNTRUSTED_NOTICE,
    items,
    more: found.items.length > limit || found.truncated,
  };
}

/** `list_folders`: the folders the user may access, with their right on each. */
export async function foldersTool(context: ToolContext): Promise<Answer> {
  const folders = await userFolders(context);
  const paths = folderPaths(folders);
  return {
    notice: UNTRUSTED_NOTICE,
    folders: folders.map((folder) => {
      const right = permissionsOf(folder.accessType);
      return {
        id: folder.id,
        right: right.code,
        rightWords: right.words,
        canRead: right.read,
        canAddItems: right.add,
        data: {
          title: untrusted(folder.title),
          path: (paths.get(folder.id) ?? [folder.title]).map(untrusted),
        },
      };
    }),
  };
}

/**
 * Reads a field name as a reference holds it: a value's name, `otp`, or `file:<name>` (the name
 * as it is, not escaped).
 */
export function parseFieldName(text: string): ReferenceField {
  if ((FIELD_NAMES as readonly string[]).includes(text)) return text as ReferenceField;
  if (text.startsWith('file:') && text.length > 5) return { file: text.slice(5) };
  throw new ToolFailure('bad_input', `Unknown field: expected ${FIELD_NAMES.join(', ')} or file:<name>.`);
}

function checkFailure(check: Extract<ReferenceCheck, { ok: false }>): ToolFailure {
  const code = check.error.code;
  const mapped =
    code === 'forbidden'
      ? 'forbidden'
      : code === 'not_found' || code === 'ambiguous'
        ? 'not_found'
        : 'bad_input';
  return new ToolFailure(mapped, bounded(check.error.message));
}

/**
 * `get_reference`: the references (by id and by path) to a field of an item the user may read,
 * after checking that they resolve (without reading the value).
 */
export async function referenceTool(
  context: ToolContext,
  input: {
    itemId?: number | undefined;
    folderPath?: string[] | undefined;
    label?: string | undefined;
    field: string;
  },
): Promise<Answer> {
  const field = parseFieldName(input.field);
  let reference: Reference;
  if (input.itemId !== undefined) {
    if (input.folderPath !== undefined || input.label !== undefined)
      throw new ToolFailure('bad_input', 'Give either itemId, or folderPath with label, not both.');
    reference = { kind: 'id', id: input.itemId, field };
  } else if (input.folderPath !== undefined && input.folderPath.length > 0 && input.label !== undefined) {
    reference = { kind: 'path', folders: input.folderPath, label: input.label, field };
  } else {
    throw new ToolFailure('bad_input', 'Give itemId, or folderPath (at least one folder) with label.');
  }
  let text: string;
  try {
    text = formatReference(reference);
  } catch (error) {
    throw new ToolFailure('bad_input', bounded((error as Error).message));
  }
  const [check] = await checkReferences(context.connection.client, [reference]);
  if (!check) throw new ToolFailure('failed', 'The reference could not be checked.');
  if (!check.ok) throw checkFailure(check);
  const byPath = referenceToItem(check.item, field, { form: 'path' });
  // A reference by path spells the vault's titles and label: vault text, inside `data`, bounded.
  return {
    notice: UNTRUSTED_NOTICE,
    reference: formatReference({ kind: 'id', id: check.item.id, field }),
    byId: formatReference({ kind: 'id', id: check.item.id, field }),
    asked: untrusted(text),
    item: {
      id: check.item.id,
      folderId: check.item.folderId,
      data: {
        label: untrusted(check.item.label),
        folderPath: check.item.path.map(untrusted),
        byPath: byPath.kind === 'path' ? untrusted(formatReference(byPath)) : null,
      },
    },
  };
}

/** Line and column (1-based, in characters) of a UTF-16 offset. */
function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line, column: Array.from(before.slice(lineStart)).length + 1 };
}

/** The most references one check looks at. */
export const MAX_CHECKED_REFERENCES = 500;

/**
 * `check_references`: every reference in a file or a text, whether it resolves for this user and,
 * when not, why; resolved without reading any value.
 */
export async function checkTool(
  context: ToolContext,
  input: { file?: string | undefined; text?: string | undefined },
): Promise<Answer> {
  if ((input.file === undefined) === (input.text === undefined))
    throw new ToolFailure('bad_input', 'Give either file or text.');
  const text = input.file !== undefined ? (await readTextFile(context.root, input.file)).text : input.text!;
  const found = findReferences(text).slice(0, MAX_CHECKED_REFERENCES);
  const parsed = found.filter((entry) => entry.reference !== undefined);
  const checks =
    parsed.length === 0
      ? []
      : await checkReferences(
          context.connection.client,
          parsed.map((entry) => entry.reference!),
        );
  const byText = new Map(checks.map((check) => [check.text, check]));
  const references = found.map((entry) => {
    const where = position(text, entry.start);
    if (!entry.reference)
      return {
        ...where,
        data: { reference: untrusted(entry.text) },
        resolves: false,
        problem: entry.error?.code ?? 'invalid_reference',
        why: bounded(entry.error?.message ?? 'It does not follow the grammar.'),
      };
    const check = byText.get(formatReference(entry.reference));
    if (!check?.ok)
      return {
        ...where,
        data: { reference: untrusted(entry.text) },
        resolves: false,
        problem: check?.error.code ?? 'not_found',
        why: bounded(check?.error.message ?? 'Not checked.'),
      };
    return {
      ...where,
      data: { reference: untrusted(entry.text) },
      resolves: true,
      item: {
        id: check.item.id,
        data: { label: untrusted(check.item.label), folderPath: check.item.path.map(untrusted) },
      },
    };
  });
  return {
    notice: UNTRUSTED_NOTICE,
    references,
    resolving: references.filter((entry) => entry.resolves).length,
    failing: references.filter((entry) => !entry.resolves).length,
  };
}

/** What `store_secret` is given: where the secret is, and where it goes. */
export interface StoreInput {
  readonly file: string;
  readonly line: number;
  readonly startColumn?: number | undefined;
  readonly endColumn?: number | undefined;
  readonly folderId: number;
  readonly label: string;
  readonly login?: string | undefined;
  readonly url?: string | undefined;
  readonly form?: 'id' | 'path' | undefined;
}

/** A `KEY=value`, `key: value` or `export KEY="value"` line: the value's range. */
const ASSIGNMENT = /^(\s*(?:export\s+)?[^\s=:#]+\s*[=:]\s*)(.*?)\s*$/u;

/** The UTF-16 range of the secret a store input names, in the file's text. */
export function secretRange(
  text: string,
  input: Pick<StoreInput, 'line' | 'startColumn' | 'endColumn'>,
): { start: number; end: number } {
  const lines = text.split('\n');
  if (input.line > lines.length)
    throw new ToolFailure(
      'bad_input',
      `The file has ${lines.length} lines; line ${input.line} does not exist.`,
    );
  const lineStart = lines.slice(0, input.line - 1).reduce((sum, line) => sum + line.length + 1, 0);
  const lineText = lines[input.line - 1]!.replace(/\r$/, '');
  let start: number;
  let end: number;
  if (input.startColumn !== undefined || input.endColumn !== undefined) {
    const chars = Array.from(lineText);
    const from = (input.startColumn ?? 1) - 1;
    const to = (input.endColumn ?? chars.length + 1) - 1;
    if (from < 0 || to > chars.length || from >= to)
      throw new ToolFailure(
        'bad_input',
        `Line ${input.line} has ${chars.length} characters: columns ${from + 1} to ${to + 1} (end excluded) are not a range in it.`,
      );
    start = chars.slice(0, from).join('').length;
    end = start + chars.slice(from, to).join('').length;
  } else {
    const match = ASSIGNMENT.exec(lineText);
    if (!match || match[2] === '')
      throw new ToolFailure(
        'bad_input',
        `Line ${input.line} is not a KEY=value or key: value line; give startColumn and endColumn.`,
      );
    start = match[1]!.length;
    end = start + match[2]!.length;
    const value = match[2]!;
    const quote = value[0];
    if (value.length >= 2 && (quote === '"' || quote === "'" || quote === '`') && value.endsWith(quote)) {
      start += 1;
      end -= 1;
    }
  }
  return { start: lineStart + start, end: lineStart + end };
}

/**
 * `store_secret`: reads the secret from a range of a file under the root, stores it as the password
 * of a new item in a folder the user may add to (when it reaches the folder's strength rule),
 * checks that the vault holds it as read, then replaces it in the file with the item's reference.
 * The answer names the item, the folder and the file; never the secret.
 */
export async function storeTool(
  context: ToolContext,
  input: StoreInput,
  remember: (secret: string) => void,
): Promise<Answer> {
  const file = await openTextFile(context.root, input.file);
  try {
    return await storeFrom(context, input, remember, file);
  } finally {
    await file.dir.close();
  }
}

async function storeFrom(
  context: ToolContext,
  input: StoreInput,
  remember: (secret: string) => void,
  file: HeldTextFile,
): Promise<Answer> {
  const { start, end } = secretRange(file.text, input);
  const secret = file.text.slice(start, end);
  remember(secret);
  if (secret.trim() === '')
    throw new ToolFailure('bad_input', 'The range holds only spaces: nothing to store.');
  if (findReferences(secret).length > 0 || secret.includes('vaultline://'))
    throw new ToolFailure('bad_input', 'The range holds a vaultline:// reference already: nothing to store.');
  const folders = await userFolders(context);
  const folder = folders.find((candidate) => candidate.id === input.folderId);
  if (!folder)
    throw new ToolFailure(
      'not_found',
      `Folder ${input.folderId} is not among the folders this user may access (see list_folders).`,
    );
  const right = permissionsOf(folder.accessType);
  if (!right.add)
    throw new ToolFailure(
      'forbidden',
      `This user may not add items to folder ${folder.id} (right: ${right.words}); pick a folder where canAddItems is true.`,
    );
  const complexity = Number((folder.raw as Record<string, unknown>).complexity_level);
  const level = Number.isFinite(complexity) ? complexity : undefined;
  if (!meetsComplexity(secret, level))
    throw new ToolFailure(
      'too_weak',
      `The secret does not reach the strength folder ${folder.id} asks for (${requiredBits(level)} bits${level === undefined ? ': the vault does not say its rule, so the strongest is asked' : ''}); it was not stored and the file was left as it is. The person should rotate it for a stronger one, or pick another folder.`,
    );
  const { id } = await context.connection.client.items.create({
    label: input.label,
    password: secret,
    folderId: folder.id,
    login: input.login ?? '',
    url: input.url ?? '',
  });
  const stored = await context.connection.client.items.get(id).catch((error: unknown) => {
    if (isVaultError(error, 'not_found')) return undefined;
    throw error;
  });
  if (stored?.password !== secret)
    throw new ToolFailure(
      'failed',
      `The vault did not return the secret as it was read from the file (item ${id}); the file was left as it is. Check item ${id} and delete it if it is wrong.`,
    );
  const path = folderPaths(folders).get(folder.id) ?? [folder.title];
  const item = { id, label: input.label, path };
  const written = formatReference(referenceToItem(item, 'password', { form: input.form ?? 'id' }));
  // What the answer says outside `data` holds no vault text: the reference by id.
  const byId = formatReference({ kind: 'id', id, field: 'password' });
  try {
    await replaceTextFile(file, `${file.text.slice(0, start)}${written}${file.text.slice(end)}`);
  } catch (error) {
    if (error instanceof ToolFailure)
      throw new ToolFailure(
        error.code,
        `${error.message} The secret is stored as item ${id}: replace it by hand with ${byId}.`,
      );
    throw error;
  }
  const where = position(file.text, start);
  return {
    notice: UNTRUSTED_NOTICE,
    stored: {
      itemId: id,
      folderId: folder.id,
      data: {
        label: untrusted(input.label),
        folderPath: path.map(untrusted),
        // The reference by path spells the vault's titles: what the file holds, shown bounded.
        byPath: written === byId ? null : untrusted(written),
      },
    },
    file: file.shown,
    line: where.line,
    column: where.column,
    reference: byId,
    written: written === byId ? 'id' : 'path',
    next: "The secret is still in this file's history (git, backups, the editor's local history) and wherever it was shared: the person should rotate it.",
  };
}

/** Cuts a message to a bounded length. */
function bounded(message: string): string {
  return untrusted(message.length > 400 ? `${message.slice(0, 399)}…` : message).slice(0, 400);
}

/** The CLI's codes for a connection that cannot be opened (none, or its secrets missing). */
const NOT_CONNECTED = new Set([
  'no_connection',
  'no_key',
  'no_credentials',
  'no_login',
  'invalid_connection',
]);

/**
 * Turns any failure into the tool's own words: vault errors by their code (never the server's
 * text, which could echo a request), the CLI's messages as they are (they hold no values).
 *
 * @param error The failure.
 * @param connection The connection, for its name.
 * @returns The failure to answer with.
 */
export function toToolFailure(error: unknown, connection: Connection | undefined): ToolFailure {
  if (error instanceof ToolFailure) return error;
  if (isVaultError(error)) return vaultFailure(error, connection);
  if (error instanceof CliError)
    return new ToolFailure(
      NOT_CONNECTED.has(error.code) ? 'not_connected' : 'unauthorized',
      bounded(error.message),
    );
  return new ToolFailure(
    'failed',
    `The tool failed unexpectedly (${error instanceof Error ? error.name : typeof error}).`,
  );
}

function vaultFailure(error: VaultError, connection: Connection | undefined): ToolFailure {
  const where = connection
    ? `the vault of connection ${JSON.stringify(connection.name)} (${connection.url})`
    : 'the vault';
  switch (error.code) {
    case 'network':
    case 'timeout':
    case 'server':
    case 'invalid_response':
    case 'rate_limited':
    case 'aborted':
      return new ToolFailure(
        'vault_unavailable',
        `Cannot use ${where}: ${error.code.replace('_', ' ')}. Try again later; the person may check that the vault runs.`,
      );
    case 'unauthorized':
    case 'api_disabled':
      return new ToolFailure(
        'unauthorized',
        `${where} refused the credentials: the person runs vaultline connect again (never paste credentials into the chat).`,
      );
    case 'forbidden':
      return new ToolFailure('forbidden', `${where} refused: this user has no right to do that.`);
    case 'not_found':
      return new ToolFailure(
        'not_found',
        `${where} has no such item or folder (or this user may not see it).`,
      );
    case 'duplicate_label':
      return new ToolFailure('exists', 'An item with a similar label exists already: choose another label.');
    case 'too_large':
      return new ToolFailure(
        'bad_input',
        `${where} refused it as too large (a vault may limit the length of a password).`,
      );
    case 'invalid_request':
      return new ToolFailure('bad_input', `${where} refused the request as invalid (${error.code}).`);
    default:
      return new ToolFailure('failed', `${where} failed (${error.code}).`);
  }
}
