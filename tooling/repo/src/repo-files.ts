/**
 * The repository's files: what git tracks plus what it would track (untracked files that no
 * `.gitignore` excludes), so that `node_modules`, `dist`, `.tools` and data directories are never
 * read, and a new file is checked before it is committed.
 *
 * @module
 */

import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';

/** The repository root: this package sits in `tooling/repo`. */
export const REPO_ROOT: string = join(import.meta.dirname, '..', '..', '..');

/**
 * The repository's files that exist on disk, as `/`-separated paths relative to the root.
 *
 * @param root The repository root.
 * @returns The paths, sorted.
 */
export function repositoryFiles(root: string = REPO_ROOT): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return [...new Set(listed.split('\0'))]
    .filter((path) => path !== '' && existsSync(join(root, path)))
    .sort();
}

/**
 * The files git records as symbolic links (mode 120000): they break on checkouts without symlinks.
 *
 * @param root The repository root.
 * @returns Their paths.
 */
export function symbolicLinks(root: string = REPO_ROOT): string[] {
  const staged = execFileSync('git', ['ls-files', '-z', '--stage'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((line) => line.startsWith('120000 '))
    .map((line) => line.slice(line.indexOf('\t') + 1));
  const onDisk = repositoryFiles(root).filter((path) => lstatSync(join(root, path)).isSymbolicLink());
  return [...new Set([...staged, ...onDisk])].sort();
}
