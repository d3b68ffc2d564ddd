/**
 * What the MCP tools work with, and what more than one of them needs. The tools (one file each)
 * are host-free of MCP itself: each takes the connection and its input and returns an answer of
 * metadata and references. No tool reads a value into its answer: search drops passwords (and
 * never reads a one-time code), references are checked without their values (`checkReferences`),
 * and the one tool that handles a secret (`store_secret`) reads it from a file and hands it only to
 * the vault. Vault text goes through `untrusted`, inside `data`.
 *
 * @module
 */

import type { Folder } from '@vaultline/protocol';
import type { Connection } from '../../connection.ts';

/** What every tool works with. */
export interface ToolContext {
  /** The connection (the CLI's: environment or keychain). */
  readonly connection: Connection;
  /** The directory files are read and written under (a real path). */
  readonly root: string;
}

/** An answer: plain JSON. */
export type Answer = Record<string, unknown>;

/** The folders the acting user may access; the CLI's words when no login is known. */
export async function userFolders(context: ToolContext): Promise<Folder[]> {
  await context.connection.actingLogin('this tool');
  return context.connection.client.folders.list();
}

/** Each folder's path of titles, root first, from the parents among the user's folders. */
export function folderPaths(folders: readonly Folder[]): Map<number, string[]> {
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

/** Line and column (1-based, in characters) of a UTF-16 offset. */
export function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line, column: Array.from(before.slice(lineStart)).length + 1 };
}
