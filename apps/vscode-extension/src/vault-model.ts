import { type Folder, permissionsOf, type ServerCapabilities } from '@vaultline/protocol';
import * as vscode from 'vscode';
import type { ConnectionStore } from './connections.ts';
import { COMMANDS, VIEWS } from './constants.ts';
import { type FixAction, isKeyProblem, UserFacingError, userMessage } from './error-messages.ts';
import {
  type ConnectionNode,
  type FileNode,
  type FolderNode,
  folderPath,
  type ItemNode,
  type MessageNode,
  summarizeItem,
  type VaultNode,
} from './tree-nodes.ts';

/** A connection's folders: the top ones, and every one by id. */
export interface FolderTree {
  roots: FolderNode[];
  byId: Map<number, FolderNode>;
}

/**
 * What the Vault view shows, loaded through the protocol core and cached: the connections, the
 * folders of each connection's login as the vault nests them, their items (loaded when a folder
 * opens, filtered by folder and by the login's rights) and the items' attachments. A load that fails
 * is an error node that says why and what fixes it. Passwords never enter it.
 */
export class VaultModel {
  private readonly connectionNodes = new Map<string, ConnectionNode>();
  private readonly folders = new Map<string, Promise<FolderTree | MessageNode>>();
  private readonly items = new Map<string, Promise<ItemNode[] | MessageNode>>();
  private readonly files = new Map<string, Promise<FileNode[] | MessageNode>>();
  /** What each connection's server can do, read when its folders load. */
  private readonly capabilities = new Map<string, ServerCapabilities>();
  private readonly connections: ConnectionStore;

  constructor(connections: ConnectionStore) {
    this.connections = connections;
  }

  /** The configured connections, as nodes that stay the same while their settings do. */
  connectionList(): ConnectionNode[] {
    return this.connections.list().map((settings) => {
      const existing = this.connectionNodes.get(settings.name);
      if (existing && existing.login === settings.login && existing.url === settings.url) return existing;
      const node: ConnectionNode = {
        kind: 'connection',
        connection: settings.name,
        login: settings.login,
        url: settings.url,
      };
      this.connectionNodes.set(settings.name, node);
      return node;
    });
  }

  /** The root node of a connection, when it is configured. */
  root(connection: string): ConnectionNode | undefined {
    return this.connectionList().find((node) => node.connection === connection);
  }

  /** Whether a connection's server has file endpoints: `unknown` until its folders loaded. */
  filesSupported(connection: string): boolean | 'unknown' {
    return this.capabilities.get(connection)?.files ?? 'unknown';
  }

  /** Whether a connection's server reads out one-time codes: `false` until its folders loaded. */
  otpSupported(connection: string): boolean {
    return this.capabilities.get(connection)?.otp === true;
  }

  /** Forgets everything loaded, and every connection's cached rights. */
  clear(): void {
    this.folders.clear();
    this.items.clear();
    this.files.clear();
    this.connectionNodes.clear();
    this.capabilities.clear();
    this.connections.invalidateRights();
  }

  /** Forgets what was loaded below a node (a connection also forgets its login's rights). */
  forget(node: VaultNode): void {
    switch (node.kind) {
      case 'connection':
        this.forgetConnection(node.connection);
        void this.connections.get(node.connection).then(
          (c) => {
            c.access.invalidate();
          },
          () => undefined,
        );
        break;
      case 'folder':
        this.items.delete(folderKey(node));
        break;
      case 'item':
        this.files.delete(fileKey(node));
        break;
      default:
        break;
    }
  }

  /** Forgets everything loaded for one connection. */
  forgetConnection(connection: string): void {
    for (const cache of [this.folders, this.items, this.files]) {
      for (const key of cache.keys())
        if (key === connection || key.startsWith(`${connection}/`)) cache.delete(key);
    }
  }

  /** What fixes an error of a connection: Connect again (prefilled) for a key problem, Retry otherwise. */
  fixFor(connection: string, error: unknown): FixAction {
    if (isKeyProblem(error) || (error instanceof UserFacingError && error.needsConnect)) {
      return {
        title: vscode.l10n.t('Connect'),
        command: COMMANDS.connect,
        args: [{ reconnect: connection }],
      };
    }
    const root = this.root(connection);
    return {
      title: vscode.l10n.t('Retry'),
      command: COMMANDS.refreshNode,
      ...(root ? { args: [root] } : {}),
    };
  }

  /** The folders of a connection's login, nested (cached). */
  loadFolders(node: ConnectionNode): Promise<FolderTree | MessageNode> {
    let pending = this.folders.get(node.connection);
    if (!pending) {
      pending = this.withProgress(async () => {
        const connection = await this.connections.get(node.connection);
        const [folders, capabilities] = await Promise.all([
          connection.actingLogin().then((login) => connection.access.folders(login)),
          connection.client.capabilities().catch(() => undefined),
        ]);
        if (capabilities) this.capabilities.set(node.connection, capabilities);
        return nestFolders(node, folders);
      }, node);
      this.folders.set(node.connection, pending);
    }
    return pending;
  }

  /** The items of a folder the login may read, sorted by label (cached). */
  loadItems(node: FolderNode): Promise<ItemNode[] | MessageNode> {
    const key = folderKey(node);
    let pending = this.items.get(key);
    if (!pending) {
      pending = this.withProgress(async () => {
        const connection = await this.connections.get(node.connection);
        const records = await connection.client.items.list(node.folder.id).all();
        // read/folder has returned items of other folders on real servers (TeamPass #2718).
        const own = records.filter((record) => record.folderId === node.folder.id);
        // The folder's right decides for all its items: nothing more is read.
        const readable = await connection.access.filterReadable(await connection.actingLogin(), own);
        return readable
          .map(
            (record): ItemNode => ({
              kind: 'item',
              connection: node.connection,
              item: { ...summarizeItem(record), path: folderPath(node) },
              parent: node,
            }),
          )
          .sort((a, b) => a.item.label.localeCompare(b.item.label));
      }, node);
      this.items.set(key, pending);
    }
    return pending;
  }

  /** The attachments of an item (cached). */
  loadFiles(node: ItemNode): Promise<FileNode[] | MessageNode> {
    const key = fileKey(node);
    let pending = this.files.get(key);
    if (!pending) {
      pending = this.withProgress(async () => {
        const connection = await this.connections.get(node.connection);
        const files = await connection.client.files.list(node.item.id);
        return files.map(
          (file): FileNode => ({
            kind: 'file',
            connection: node.connection,
            file: { id: file.id, name: file.name, type: file.type, size: file.size },
            parent: node,
          }),
        );
      }, node);
      this.files.set(key, pending);
    }
    return pending;
  }

  /** The node of an item and its index among its folder's items, loading the folder when needed. */
  async findItem(
    connection: string,
    folderId: number,
    itemId: number,
  ): Promise<{ node: ItemNode; index: number } | undefined> {
    const root = this.root(connection);
    if (!root) return undefined;
    const tree = await this.loadFolders(root);
    if (!('byId' in tree)) return undefined;
    const folder = tree.byId.get(folderId);
    if (!folder) return undefined;
    const items = await this.loadItems(folder);
    if (!Array.isArray(items)) return undefined;
    const index = items.findIndex((node) => node.item.id === itemId);
    return index < 0 ? undefined : { node: items[index]!, index };
  }

  /**
   * A folder's path as people see it (`folderPath`), loading the connection's folders when
   * needed.
   *
   * @returns The path, or `undefined` when the login's folders do not hold it (or failed to load).
   */
  async folderPathOf(connection: string, folderId: number): Promise<string[] | undefined> {
    const root = this.root(connection);
    if (!root) return undefined;
    const tree = await this.loadFolders(root);
    const node = 'byId' in tree ? tree.byId.get(folderId) : undefined;
    return node ? folderPath(node) : undefined;
  }

  /**
   * The folders of a connection that its login may read, for search; the error node when the folder
   * list cannot be loaded (so that search says what the tree says).
   */
  async readableFolders(connection: string): Promise<FolderNode[] | MessageNode> {
    const root = this.root(connection);
    if (!root) return [];
    const tree = await this.loadFolders(root);
    return 'byId' in tree
      ? [...tree.byId.values()].filter((f) => permissionsOf(f.folder.accessType).read)
      : tree;
  }

  private async withProgress<T>(load: () => Promise<T>, parent: VaultNode): Promise<T | MessageNode> {
    try {
      return await vscode.window.withProgress({ location: { viewId: VIEWS.tree } }, load);
    } catch (error) {
      const connection = parent.connection;
      let redact = (text: string) => text;
      try {
        redact = (await this.connections.get(connection)).client.redact;
      } catch {
        // The connection itself is what failed; the message carries no server text then.
      }
      const fix = this.fixFor(connection, error);
      return {
        kind: 'message',
        severity: 'error',
        connection,
        text: userMessage(error, connection, redact),
        parent,
        ...(fix.command === COMMANDS.connect ? { fix } : {}),
      };
    }
  }
}

/** The cache key of a folder's items. */
export function folderKey(node: FolderNode): string {
  return `${node.connection}/${node.folder.id}`;
}

function fileKey(node: ItemNode): string {
  return `${node.connection}/${node.item.id}`;
}

/** Nests folders by parent id, or by level in server order when the server sends no parent id. */
function nestFolders(root: ConnectionNode, folders: readonly Folder[]): FolderTree {
  const byId = new Map<number, FolderNode>();
  for (const folder of folders) {
    byId.set(folder.id, {
      kind: 'folder',
      connection: root.connection,
      folder: {
        id: folder.id,
        title: folder.title,
        accessType: folder.accessType,
        parentId: folder.parentId,
        level: folder.level,
        // The folder's own rule where the server reports it (the core's data; TeamPass 2 does not).
        complexityLevel: folder.complexityLevel,
        personal: folder.personal,
      },
      parentLogin: root.login,
      parent: root,
      subfolders: [],
    });
  }
  const roots: FolderNode[] = [];
  const stack: FolderNode[] = [];
  for (const folder of folders) {
    const node = byId.get(folder.id)!;
    let parent: FolderNode | undefined;
    if (folder.parentId !== undefined && folder.parentId !== 0) parent = byId.get(folder.parentId);
    else if (folder.parentId === undefined) {
      while (stack.length > 0 && stack[stack.length - 1]!.folder.level >= folder.level) stack.pop();
      parent = stack[stack.length - 1];
    }
    stack.push(node);
    if (parent && parent !== node) {
      node.parent = parent;
      parent.subfolders.push(node);
    } else roots.push(node);
  }
  return { roots, byId };
}
