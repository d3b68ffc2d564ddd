import * as vscode from 'vscode';
import { COMMANDS, EXTENSION_ID } from '../../src/constants.ts';
import type { ConnectionNode, FolderNode, ItemNode, VaultNode } from '../../src/tree-nodes.ts';
import type { ConnectArgs, VaultlineApi } from '../../src/vaultline.ts';
import type { Fixture } from './fixture.ts';

export async function extensionApi(): Promise<VaultlineApi> {
  const extension = vscode.extensions.getExtension<VaultlineApi>(EXTENSION_ID);
  if (!extension) throw new Error(`extension ${EXTENSION_ID} is not loaded`);
  return extension.activate();
}

/** Polls until `check` returns a value other than undefined/false, within a bound. */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The text of hovers as one string, `&nbsp;` read as a space. */
export function hoverText(hovers: readonly vscode.Hover[]): string {
  return hovers
    .flatMap((hover) => hover.contents)
    .map((content) => (typeof content === 'string' ? content : content.value))
    .join('\n')
    .replace(/&nbsp;/g, ' ');
}

/** The hover text at a position of a document (empty when no hover shows). */
export async function hoverAt(uri: vscode.Uri, position: vscode.Position): Promise<string> {
  return hoverText(
    await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, position),
  );
}

/**
 * Polls until a hover shows at a position: the first hover request may come before the extension
 * host has the new document.
 */
export function waitForHover(uri: vscode.Uri, position: vscode.Position, what = 'a hover'): Promise<string> {
  return waitFor(async () => (await hoverAt(uri, position)) || undefined, what);
}

export async function connect(args: ConnectArgs): Promise<boolean | undefined> {
  return vscode.commands.executeCommand<boolean | undefined>(COMMANDS.connect, args);
}

/**
 * Saves the connection `down`: alice's key on the URL where no vault listens, saved without the
 * check that would refuse it (as a user may while the vault is down).
 */
export async function connectDown(fixture: Fixture): Promise<boolean | undefined> {
  return connect({
    name: 'down',
    url: fixture.downUrl,
    login: 'alice',
    apiKey: fixture.keys.alice,
    saveUnverified: true,
  });
}

/** Removes a connection without the confirmation dialog (the test stands for the user's "yes"). */
export async function disconnect(name: string): Promise<boolean | undefined> {
  return vscode.commands.executeCommand<boolean | undefined>(
    COMMANDS.disconnect,
    { kind: 'connection', connection: name },
    { confirmed: true },
  );
}

export async function roots(api: VaultlineApi): Promise<ConnectionNode[]> {
  return (await api.tree.getChildren()) as ConnectionNode[];
}

export async function connectionNode(api: VaultlineApi, name: string): Promise<ConnectionNode> {
  return waitFor(
    async () => (await roots(api)).find((node) => node.connection === name),
    `connection ${name}`,
  );
}

/** Every folder under a connection, depth first, as `Parent / Child` paths. */
export async function folderPaths(api: VaultlineApi, name: string): Promise<Map<string, FolderNode>> {
  const out = new Map<string, FolderNode>();
  const walk = async (node: VaultNode, prefix: string) => {
    for (const child of await api.tree.getChildren(node)) {
      if (child.kind !== 'folder') continue;
      const title = child.folder.personal ? 'Personal' : child.folder.title;
      const path = prefix ? `${prefix} / ${title}` : title;
      out.set(path, child);
      await walk(child, path);
    }
  };
  await walk(await connectionNode(api, name), '');
  return out;
}

export async function folderNode(api: VaultlineApi, connection: string, path: string): Promise<FolderNode> {
  const folder = (await folderPaths(api, connection)).get(path);
  if (!folder) throw new Error(`no folder ${path} under ${connection}`);
  return folder;
}

export async function itemNodes(api: VaultlineApi, folder: FolderNode): Promise<ItemNode[]> {
  return (await api.tree.getChildren(folder)).filter((node): node is ItemNode => node.kind === 'item');
}

export async function itemNode(
  api: VaultlineApi,
  connection: string,
  path: string,
  label: string,
): Promise<ItemNode> {
  const folder = await folderNode(api, connection, path);
  const item = (await itemNodes(api, folder)).find((node) => node.item.label === label);
  if (!item) throw new Error(`no item ${label} in ${path}`);
  return item;
}

/** A mark in the Output channel's log, for {@link logSince}. */
export function logMark(api: VaultlineApi): number {
  return api.log.written;
}

/** The log lines written since a mark (the log keeps only its last lines, so lengths cannot be compared). */
export function logSince(api: VaultlineApi, mark: number): string[] {
  const fresh = api.log.written - mark;
  return fresh <= 0 ? [] : api.log.lines.slice(-fresh);
}

/** The error messages the extension showed since `from`. */
export function errorsSince(api: VaultlineApi, from: number): string[] {
  return api.notifier.notices
    .slice(from)
    .filter((notice) => notice.severity === 'error')
    .map((notice) => notice.text);
}

export async function setConfig(key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration('vaultline').update(key, value, vscode.ConfigurationTarget.Global);
}

/** A TCP relay to a server that the test can stop: "the server went away" without stopping it. */
export interface StoppableRelay {
  url: string;
  stop(): Promise<void>;
}

export async function startRelay(target: string): Promise<StoppableRelay> {
  const { createServer, connect: tcp } = await import('node:net');
  const { hostname, port } = new URL(target);
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((client) => {
    const upstream = tcp(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as import('node:net').AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The workspace's `.vscode/settings.json`, written as a hostile repository would ship it. */
export function workspaceSettingsUri(): vscode.Uri {
  return vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, '.vscode', 'settings.json');
}

/** Whether a `view/item/context` menu entry of package.json shows for a row's contextValue. */
export function offered(command: string, contextValue: string): boolean {
  const manifest = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as {
    contributes: { menus: Record<string, Array<{ command: string; when: string }>> };
  };
  return manifest.contributes.menus['view/item/context']!.filter((entry) => entry.command === command).some(
    (entry) => {
      const match = /viewItem =~ \/(.*)\/(?: |$)/.exec(entry.when);
      return match
        ? new RegExp(match[1]!).test(contextValue)
        : entry.when.includes(`viewItem == ${contextValue}`);
    },
  );
}

/** Accepts what the open quick input holds. */
export const accept = (): Thenable<unknown> =>
  vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');

/** Accepts what the open input boxes hold, one after the other, until `done` settles (bounded). */
export async function acceptUntil<T>(done: Thenable<T>): Promise<T> {
  let settled = false;
  const result = Promise.resolve(done).finally(() => {
    settled = true;
  });
  for (let i = 0; i < 60 && !settled; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (!settled) await accept();
  }
  return result;
}

/** A dotenv document with one secret warning, and that warning. */
export async function dotenvWithSecret(
  text: string,
): Promise<{ document: vscode.TextDocument; range: vscode.Range }> {
  const document = await vscode.languages.setTextDocumentLanguage(
    await vscode.workspace.openTextDocument({ content: text }),
    'dotenv',
  );
  await vscode.window.showTextDocument(document);
  const diagnostic = await waitFor(
    () => vscode.languages.getDiagnostics(document.uri).find((entry) => entry.code === 'password-assignment'),
    'the secret warning',
  );
  return { document, range: diagnostic.range };
}
