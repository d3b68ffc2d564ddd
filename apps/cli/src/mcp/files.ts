/**
 * Files the MCP tools read and write: only under the server's root (the directory it was started
 * in, or `--root`), regular UTF-8 text files of at most {@link MAX_FILE_BYTES}, followed through
 * symbolic links only when the target stays under the root. Writes go through a temporary file
 * and a rename, keep the file's mode, and happen only when the file still holds what was read.
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import { open, readFile, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolFailure } from './failure.ts';

/** The largest file a tool reads. */
export const MAX_FILE_BYTES = 1024 * 1024;

/** A text file under the root, as read. */
export interface TextFile {
  /** The path given, relative to the root, for answers. */
  readonly shown: string;
  /** The real path. */
  readonly real: string;
  /** Its text. */
  readonly text: string;
  /** Its mode. */
  readonly mode: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a text file under the root.
 *
 * @param root The root (already a real path).
 * @param path The path, relative to the root or absolute under it.
 * @returns The file.
 * @throws {ToolFailure} `bad_input` outside the root, not a regular file, too large or not UTF-8.
 */
export async function readTextFile(root: string, path: string): Promise<TextFile> {
  const full = isAbsolute(path) ? path : resolve(root, path);
  const shown = relative(root, full) || '.';
  if (!inside(root, full))
    throw new ToolFailure('bad_input', `${shown} is outside the directory the server works in.`);
  let real: string;
  try {
    real = await realpath(full);
  } catch (error) {
    throw new ToolFailure(
      'bad_input',
      `Cannot read ${shown}: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`,
    );
  }
  if (!inside(root, real))
    throw new ToolFailure('bad_input', `${shown} links outside the directory the server works in.`);
  const info = await stat(real);
  if (!info.isFile()) throw new ToolFailure('bad_input', `${shown} is not a regular file.`);
  if (info.size > MAX_FILE_BYTES)
    throw new ToolFailure('bad_input', `${shown} is larger than ${MAX_FILE_BYTES} bytes.`);
  const bytes = await readFile(real);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ToolFailure('bad_input', `${shown} is not UTF-8 text.`);
  }
  return { shown, real, text, mode: info.mode & 0o7777 };
}

/**
 * Replaces a file's text, when it still holds what was read: through a temporary file in the
 * same directory, with the same mode, renamed over it.
 *
 * @param file The file as read.
 * @param text The new text.
 * @throws {ToolFailure} `changed` when the file changed since it was read.
 */
export async function replaceTextFile(file: TextFile, text: string): Promise<void> {
  const now = await readFile(file.real, 'utf8').catch(() => undefined);
  if (now !== file.text)
    throw new ToolFailure('changed', `${file.shown} changed while the tool worked; it was left as it is.`);
  const temp = join(dirname(file.real), `.${basename(file.real)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', file.mode);
  try {
    await handle.chmod(file.mode);
    await handle.writeFile(text, 'utf8');
    await handle.close();
    await rename(temp, file.real);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw new ToolFailure(
      'write_failed',
      `Cannot write ${file.shown}: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`,
    );
  }
}

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}
