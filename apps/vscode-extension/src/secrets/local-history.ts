import { readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import * as vscode from 'vscode';

/**
 * The copies VS Code's Local History keeps of a file at each save, for the Node extension host
 * (desktop and remote: the History folder lives where the extension host runs). VS Code keeps
 * them in `<user data>/User/History/<hash of the file's URI>/`, one file per save plus an
 * `entries.json` that names the file; an extension has no API to read or edit them, and VS Code's
 * own delete command asks for each copy. After a secret is stored and replaced by its reference,
 * the copies taken before still hold it: this finds them and replaces the literal in each with
 * the reference, in place (same names, same modification times, so VS Code's list of them stays
 * true and every other change they record is kept).
 */
export class LocalHistory {
  /** The History folder. */
  readonly home: string;

  constructor(home: string) {
    this.home = home;
  }

  /**
   * Finds the History folder from the extension's global storage (`…/User/globalStorage/<id>`, or
   * `…/User/profiles/<profile>/globalStorage/<id>`): History is beside them under `User`.
   *
   * @returns It, or `undefined` when the storage is not on disk (a browser) or laid out otherwise.
   */
  static locate(context: vscode.ExtensionContext): LocalHistory | undefined {
    if (context.globalStorageUri.scheme !== 'file') return undefined;
    for (let at = context.globalStorageUri.fsPath; dirname(at) !== at; at = dirname(at))
      if (basename(at) === 'User') return new LocalHistory(join(at, 'History'));
    return undefined;
  }

  /**
   * The copies of a file that hold a text.
   *
   * @param uri The file, as this extension host sees it.
   * @param text The literal.
   * @returns Their paths.
   */
  async copiesHolding(uri: vscode.Uri, text: string): Promise<string[]> {
    if (text === '') return [];
    const out: string[] = [];
    for (const folder of await this.foldersOf(uri)) {
      for (const name of await readdir(folder).catch(() => [])) {
        if (name === ENTRIES_FILE) continue;
        const path = join(folder, name);
        const content = await readFile(path, 'utf8').catch(() => '');
        if (content.includes(text)) out.push(path);
      }
    }
    return out;
  }

  /**
   * Replaces every occurrence of a text in some copies, keeping their modification times.
   *
   * @returns How many copies changed.
   */
  async replace(paths: readonly string[], text: string, replacement: string): Promise<number> {
    let changed = 0;
    for (const path of paths) {
      const content = await readFile(path, 'utf8').catch(() => undefined);
      if (content === undefined || !content.includes(text)) continue;
      const { atimeMs, mtimeMs } = await stat(path);
      await writeFile(path, content.split(text).join(replacement));
      await utimes(path, atimeMs / 1000, mtimeMs / 1000);
      changed++;
    }
    return changed;
  }

  /**
   * The folders that hold a file's copies. On the desktop, the one named after the hash of the
   * file's URI. In a remote window the workbench names it after its own form of the URI
   * (`vscode-remote://<authority>/…`, an authority extensions cannot read), and writes
   * `entries.json` at each change: the folders whose `entries.json` names the same path. The
   * latter also when the former is missing (a desktop folder whose list was not written yet has
   * its hash folder).
   */
  private async foldersOf(uri: vscode.Uri): Promise<string[]> {
    if (vscode.env.remoteName === undefined) {
      const folder = join(this.home, vscodeHash(uri.toString()).toString(16));
      if (await isDirectory(folder)) return [folder];
    }
    const found: string[] = [];
    const names = (await readdir(this.home).catch(() => [])).slice(0, MAX_FOLDERS_SCANNED);
    for (const name of names) {
      const folder = join(this.home, name);
      const entries = await readFile(join(folder, ENTRIES_FILE), 'utf8').catch(() => undefined);
      if (entries !== undefined && resourcePath(entries) === uri.path) found.push(folder);
    }
    return found;
  }
}

/** The file in each History folder that lists its copies and names the file they are copies of. */
const ENTRIES_FILE = 'entries.json';

/** A bound on the folders read when the hash does not find a file's folder. */
const MAX_FOLDERS_SCANNED = 20_000;

/**
 * VS Code's string hash (`hash()` in src/vs/base/common/hash.ts), which names a file's folder in
 * Local History: `hash(resource.toString()).toString(16)`.
 * @see https://github.com/microsoft/vscode/blob/main/src/vs/workbench/services/workingCopy/common/workingCopyHistoryService.ts
 */
export function vscodeHash(text: string): number {
  const step = (value: number, hash: number) => ((hash << 5) - hash + value) | 0;
  let hash = step(149417, 0);
  for (let i = 0; i < text.length; i++) hash = step(text.charCodeAt(i), hash);
  return hash;
}

/** The path of the file an `entries.json` names, or `undefined` when it names none. */
function resourcePath(json: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(json);
    return typeof parsed === 'object' &&
      parsed !== null &&
      'resource' in parsed &&
      typeof parsed.resource === 'string'
      ? vscode.Uri.parse(parsed.resource).path
      : undefined;
  } catch {
    return undefined;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}
