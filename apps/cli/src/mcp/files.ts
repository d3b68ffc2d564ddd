/**
 * Files the MCP tools read and write: only under the server's root (the directory it was started
 * in, or `--root`), regular UTF-8 text files of at most {@link MAX_FILE_BYTES}, followed through
 * symbolic links only when the target stays under the root. Writes go through a temporary file
 * and a rename, keep the file's mode, and happen only when the file still holds what was read.
 * A file to be replaced is opened through a handle on its directory, reached from the root one
 * folder at a time without following a link (Linux's `/proc/self/fd`): a folder swapped for a link
 * while a tool works is noticed before anything is written, and the write goes into that
 * directory only.
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import { type FileHandle, open, readFile, realpath, rename, rm, stat } from 'node:fs/promises';
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

/** A text file under the root opened to be replaced: its directory held. */
export interface HeldTextFile extends TextFile {
  /** The directory, opened from the root without following a link. */
  readonly dir: FileHandle;
  /** The file's name in it. */
  readonly name: string;
  /** The root, and the directory's path under it. */
  readonly root: string;
  readonly parts: readonly string[];
}

/** Where a directory handle's entries are reached by path without their path (Linux). */
const FD_DIR = '/proc/self/fd';
const byHandle = existsSync(FD_DIR);
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** A path to `name` in the directory held by `dir`: through the handle where the system allows it. */
function at(dir: FileHandle, path: string, name: string): string {
  return byHandle ? `${FD_DIR}/${dir.fd}/${name}` : join(path, name);
}

/**
 * Opens a directory under the root one folder at a time, following no link: each step is taken
 * from the handle of the one before, so nothing moved meanwhile redirects it.
 */
async function openDirectory(root: string, parts: readonly string[]): Promise<FileHandle> {
  let dir = await open(root, DIR_FLAGS);
  let path = root;
  try {
    for (const part of parts) {
      const next = await open(at(dir, path, part), DIR_FLAGS);
      await dir.close();
      dir = next;
      path = join(path, part);
    }
    return dir;
  } catch (error) {
    await dir.close().catch(() => undefined);
    throw error;
  }
}

/**
 * Opens a text file under the root to replace it later ({@link replaceTextFile}): read through a
 * handle on its directory. Close `dir` when done.
 *
 * @param root The root (already a real path).
 * @param path The path, relative to the root or absolute under it.
 * @returns The file, its directory held.
 * @throws {ToolFailure} As {@link readTextFile}; `changed` when a folder on its path moved.
 */
export async function openTextFile(root: string, path: string): Promise<HeldTextFile> {
  const read = await readTextFile(root, path);
  const parts = relative(root, dirname(read.real))
    .split(sep)
    .filter((part) => part !== '');
  const name = basename(read.real);
  let dir: FileHandle;
  try {
    dir = await openDirectory(root, parts);
  } catch {
    throw movedFailure(read.shown);
  }
  try {
    const handle = await open(at(dir, dirname(read.real), name), constants.O_RDONLY | constants.O_NOFOLLOW);
    const text = await handle.readFile('utf8').finally(() => handle.close());
    if (text !== read.text) throw movedFailure(read.shown);
    return { ...read, dir, name, root, parts };
  } catch (error) {
    await dir.close().catch(() => undefined);
    throw error instanceof ToolFailure ? error : movedFailure(read.shown);
  }
}

function movedFailure(shown: string): ToolFailure {
  return new ToolFailure('changed', `${shown} changed or moved while the tool worked; it was left as it is.`);
}

/** Whether the held directory is still the one its path under the root leads to, with no link. */
async function stillInPlace(file: HeldTextFile): Promise<boolean> {
  const again = await openDirectory(file.root, file.parts).catch(() => undefined);
  if (!again) return false;
  try {
    const [held, now] = await Promise.all([file.dir.stat(), again.stat()]);
    return held.dev === now.dev && held.ino === now.ino;
  } finally {
    await again.close();
  }
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
 * Replaces a file's text, when it is still where it was and holds what was read: through a
 * temporary file in its held directory, with the same mode, renamed over it there.
 *
 * @param file The file as opened.
 * @param text The new text.
 * @throws {ToolFailure} `changed` when the file changed, or a folder on its path moved, since it
 * was read.
 */
export async function replaceTextFile(file: HeldTextFile, text: string): Promise<void> {
  const path = dirname(file.real);
  if (!(await stillInPlace(file))) throw movedFailure(file.shown);
  const now = await open(at(file.dir, path, file.name), constants.O_RDONLY | constants.O_NOFOLLOW)
    .then((handle) => handle.readFile('utf8').finally(() => handle.close()))
    .catch(() => undefined);
  if (now !== file.text) throw movedFailure(file.shown);
  const tempName = `.${file.name}.${randomBytes(6).toString('hex')}.tmp`;
  const temp = at(file.dir, path, tempName);
  const handle = await open(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    file.mode,
  );
  try {
    await handle.chmod(file.mode);
    await handle.writeFile(text, 'utf8');
    await handle.close();
    await rename(temp, at(file.dir, path, file.name));
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
