/**
 * `store_secret`: the one tool that handles a secret, read from a file and handed only to the vault.
 *
 * @module
 */

import {
  findReferences,
  formatReference,
  isVaultError,
  meetsComplexity,
  permissionsOf,
  referenceToItem,
  requiredBits,
} from '@vaultline/protocol';
import { ToolFailure, toToolFailure } from '../failure.ts';
import { type HeldTextFile, openTextFile, replaceTextFile } from '../files.ts';
import { UNTRUSTED_NOTICE, untrusted } from '../untrusted.ts';
import { type Answer, folderPaths, position, type ToolContext, userFolders } from './context.ts';

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
    // Worded as the tool's own failure: a call made again must not store the secret twice.
    const failure = toToolFailure(error, context.connection);
    throw new ToolFailure(
      failure.code,
      `${failure.message} The secret was stored as item ${id} before that; the file was left as it is. Check item ${id}.`,
    );
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
