import { describeRight, type Folder, permissionsOf } from '@vaultline/protocol';
import * as vscode from 'vscode';
import type { ConnectionStore } from './connections.ts';
import { COMMANDS, CONFIG, CONFIG_SECTION, DEFAULTS, TEXT_MEDIA_TYPES, VIEWS } from './constants.ts';
import { type FixAction, isKeyProblem, UserFacingError, userMessage } from './error-messages.ts';
import type { PresentationMode } from './presentation-mode.ts';
import {
  type ConnectionNode,
  type FileNode,
  type FolderNode,
  type FolderSummary,
  type ItemNode,
  type MessageNode,
  summarizeItem,
  type VaultNode,
} from './tree-nodes.ts';

interface FolderTree {
  roots: FolderNode[];
  byId: Map<number, FolderNode>;
}

/**
 * The vault tree: connections, the folders of each connection's login as the vault nests them,
 * their items (loaded when a folder opens, filtered by folder and by the login's rights) and the
 * items' attachments. Passwords never enter it.
 */
export class VaultTree implements vscode.TreeDataProvider<VaultNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<VaultNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly connectionNodes = new Map<string, ConnectionNode>();
  private readonly folders = new Map<string, Promise<FolderTree | MessageNode>>();
  private readonly items = new Map<string, Promise<ItemNode[] | MessageNode>>();
  private readonly files = new Map<string, Promise<FileNode[] | MessageNode>>();
  private readonly disposables: vscode.Disposable[] = [];
  /** How many items of a folder are shown, when more than a page were shown on request. */
  private readonly shown = new Map<string, number>();
  /** Whether each connection's server has file endpoints, from its capabilities. */
  private readonly fileSupport = new Map<string, boolean | 'unknown'>();

  private readonly connections: ConnectionStore;
  private readonly presentation: PresentationMode;

  constructor(connections: ConnectionStore, presentation: PresentationMode) {
    this.connections = connections;
    this.presentation = presentation;
    this.disposables.push(
      this.changed,
      connections.onDidChange(() => this.refresh()),
      presentation.onDidChange(() => this.redraw()),
    );
  }

  /**
   * Drops cached data below a node and re-renders it; without a node, every root reloads (the
   * view's title action and the palette).
   */
  refresh(node?: VaultNode): void {
    if (!node || node.kind === 'message') {
      this.folders.clear();
      this.items.clear();
      this.files.clear();
      this.connectionNodes.clear();
      this.shown.clear();
      this.fileSupport.clear();
      this.connections.invalidateRights();
      this.changed.fire(undefined);
      return;
    }
    this.forget(node);
    this.changed.fire(node);
  }

  /** What fixes a failed row: Connect again for a key problem, Retry otherwise. */
  fixOf(node: MessageNode): FixAction {
    return node.fix ?? { title: vscode.l10n.t('Retry'), command: COMMANDS.retry, args: [node] };
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
    const root = this.connectionList().find((node) => node.connection === connection);
    return {
      title: vscode.l10n.t('Retry'),
      command: COMMANDS.refreshNode,
      ...(root ? { args: [root] } : {}),
    };
  }

  /** Re-renders a node (everything when absent) from loaded data: for label changes such as masking. */
  redraw(node?: VaultNode): void {
    this.changed.fire(node);
  }

  /** Shows every item of a folder that was cut to its first page. */
  showAll(folder: FolderNode): void {
    this.shown.set(folderKey(folder), Number.POSITIVE_INFINITY);
    this.changed.fire(folder);
  }

  /** Reloads what failed to load under an error node. */
  retry(node: MessageNode): void {
    const parent = node.parent;
    if (parent === undefined || parent.kind === 'connection') {
      this.invalidateConnection(node.connection);
      this.changed.fire(undefined);
      return;
    }
    this.refresh(parent);
  }

  getParent(node: VaultNode): VaultNode | undefined {
    return node.kind === 'connection' ? undefined : node.parent;
  }

  async getChildren(node?: VaultNode): Promise<VaultNode[]> {
    if (!node) return this.connectionList();
    switch (node.kind) {
      case 'connection': {
        const tree = await this.loadFolders(node);
        return 'roots' in tree ? tree.roots : [tree];
      }
      case 'folder': {
        const items = await this.loadItems(node);
        if (!Array.isArray(items)) return [...node.subfolders, items];
        if (items.length === 0 && node.subfolders.length === 0)
          return [this.info(node, vscode.l10n.t('No items'))];
        // A very large folder shows its first page; the rest come on request (drawing 10,000 rows
        // costs the workbench several hundred ms).
        const limit = this.shown.get(folderKey(node)) ?? this.pageSize();
        if (items.length <= limit) return [...node.subfolders, ...items];
        const more: MessageNode = {
          ...this.info(
            node,
            items.length - limit === 1
              ? vscode.l10n.t('Show the other {0} item', (items.length - limit).toLocaleString('en'))
              : vscode.l10n.t('Show the other {0} items', (items.length - limit).toLocaleString('en')),
          ),
          more: node,
        };
        return [...node.subfolders, ...items.slice(0, limit), more];
      }
      case 'item': {
        const files = await this.loadFiles(node);
        if (!Array.isArray(files)) return [files];
        return files.length > 0 ? files : [this.info(node, vscode.l10n.t('No attachments'))];
      }
      default:
        return [];
    }
  }

  getTreeItem(node: VaultNode): vscode.TreeItem {
    const mask = (text: string) => this.presentation.mask(text);
    switch (node.kind) {
      case 'connection': {
        const item = new vscode.TreeItem(node.connection, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `c/${node.connection}`;
        item.description = mask(node.login);
        item.tooltip = [
          node.connection,
          vscode.l10n.t('Login: {0}', mask(node.login)),
          vscode.l10n.t('URL: {0}', mask(node.url)),
        ].join('\n');
        item.iconPath = new vscode.ThemeIcon('server');
        item.contextValue = 'connection';
        return item;
      }
      case 'folder': {
        const title = node.folder.personal ? vscode.l10n.t('Personal') : node.folder.title;
        const item = new vscode.TreeItem(title, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `c/${node.connection}/f/${node.folder.id}`;
        const words = describeRight(node.folder.accessType);
        item.description = words;
        item.tooltip = [
          node.folder.personal ? vscode.l10n.t('Personal folder of {0}', mask(node.parentLogin)) : title,
          vscode.l10n.t('Your right: {0} ({1})', words, node.folder.accessType),
        ].join('\n');
        item.iconPath = vscode.ThemeIcon.Folder;
        item.contextValue = `folder${contextRights(node.folder)}`;
        return item;
      }
      case 'item': {
        const { item: entry } = node;
        // No expand arrow where the server has no file endpoints (the branch would always be empty).
        const files = this.fileSupport.get(node.connection) ?? 'unknown';
        const item = new vscode.TreeItem(
          entry.label,
          files === false ? vscode.TreeItemCollapsibleState.None : vscode.TreeItemCollapsibleState.Collapsed,
        );
        item.id = `c/${node.connection}/i/${entry.id}`;
        item.description = mask(entry.login);
        // The tooltip is built in resolveTreeItem, on hover: a folder of 10,000 items renders faster.
        item.iconPath = new vscode.ThemeIcon('key');
        item.contextValue = `item${contextRights(node.parent.folder)}`;
        return item;
      }
      case 'file': {
        const item = new vscode.TreeItem(node.file.name, vscode.TreeItemCollapsibleState.None);
        item.id = `c/${node.connection}/a/${node.file.id}`;
        item.description = formatSize(node.file.size);
        item.tooltip = `${node.file.name} (${node.file.type || vscode.l10n.t('unknown type')}, ${formatSize(node.file.size)})`;
        item.iconPath = vscode.ThemeIcon.File;
        item.contextValue = 'file';
        // A click opens a text attachment and saves any other (or any, while presenting).
        const opens = isTextType(node.file.type) && !this.presentation.enabled;
        item.command = {
          command: opens ? COMMANDS.openAttachment : COMMANDS.saveAttachment,
          title: opens ? vscode.l10n.t('Open Attachment') : vscode.l10n.t('Save Attachment As...'),
          arguments: [node],
        };
        return item;
      }
      case 'message': {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        item.tooltip = node.text;
        if (node.severity === 'error') {
          const fix = this.fixOf(node);
          item.iconPath = new vscode.ThemeIcon('error');
          item.contextValue = node.fix ? 'error connect' : 'error';
          item.tooltip = `${node.text}\n${vscode.l10n.t('Click to {0}.', fix.title.toLowerCase())}`;
          item.command = { command: fix.command, title: fix.title, arguments: fix.args ?? [] };
        } else if (node.more) {
          item.iconPath = new vscode.ThemeIcon('ellipsis');
          item.contextValue = 'more';
          item.command = {
            command: COMMANDS.showAllItems,
            title: vscode.l10n.t('Show all items'),
            arguments: [node],
          };
        } else {
          item.iconPath = new vscode.ThemeIcon('info');
          item.contextValue = 'info';
        }
        return item;
      }
    }
  }

  resolveTreeItem(item: vscode.TreeItem, node: VaultNode): vscode.TreeItem {
    if (node.kind === 'item') item.tooltip = this.itemTooltip(node);
    return item;
  }

  /** An item's tooltip: label, path, URL and login (masked in presentation mode), never the password. */
  itemTooltip(node: ItemNode): string {
    const mask = (text: string) => this.presentation.mask(text);
    const { item: entry } = node;
    const lines = [entry.label, vscode.l10n.t('Path: {0}', entry.path.join(' / '))];
    if (entry.url) lines.push(vscode.l10n.t('URL: {0}', mask(entry.url)));
    if (entry.login) lines.push(vscode.l10n.t('Login: {0}', mask(entry.login)));
    if (entry.description && !this.presentation.enabled) lines.push(entry.description);
    return lines.join('\n');
  }

  /** The node of an item, loading its folder when needed: for reveal from search. */
  async findItem(connection: string, folderId: number, itemId: number): Promise<ItemNode | undefined> {
    const root = this.connectionList().find((node) => node.connection === connection);
    if (!root) return undefined;
    const tree = await this.loadFolders(root);
    if (!('byId' in tree)) return undefined;
    const folder = tree.byId.get(folderId);
    if (!folder) return undefined;
    const items = await this.loadItems(folder);
    const index = Array.isArray(items) ? items.findIndex((node) => node.item.id === itemId) : -1;
    if (index < 0 || !Array.isArray(items)) return undefined;
    if (index >= (this.shown.get(folderKey(folder)) ?? this.pageSize())) this.showAll(folder);
    return items[index];
  }

  /**
   * The folders of a connection that its login may read, for search; the tree's own error row when
   * the folder list cannot be loaded (so that search says the same).
   */
  async readableFolders(connection: string): Promise<FolderNode[] | MessageNode> {
    const root = this.connectionList().find((node) => node.connection === connection);
    if (!root) return [];
    const tree = await this.loadFolders(root);
    return 'byId' in tree
      ? [...tree.byId.values()].filter((f) => permissionsOf(f.folder.accessType).read)
      : tree;
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
  }

  private connectionList(): ConnectionNode[] {
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

  private invalidateConnection(connection: string): void {
    for (const cache of [this.folders, this.items, this.files, this.shown]) {
      for (const key of cache.keys())
        if (key === connection || key.startsWith(`${connection}/`)) cache.delete(key);
    }
  }

  private forget(node: VaultNode): void {
    switch (node.kind) {
      case 'connection':
        this.invalidateConnection(node.connection);
        void this.connections.get(node.connection).then(
          (c) => {
            c.access.invalidate();
          },
          () => undefined,
        );
        break;
      case 'folder':
        this.items.delete(folderKey(node));
        this.shown.delete(folderKey(node));
        break;
      case 'item':
        this.files.delete(`${node.connection}/${node.item.id}`);
        break;
      default:
        break;
    }
  }

  private loadFolders(node: ConnectionNode): Promise<FolderTree | MessageNode> {
    let pending = this.folders.get(node.connection);
    if (!pending) {
      pending = this.withProgress(async () => {
        const connection = await this.connections.get(node.connection);
        const [folders, capabilities] = await Promise.all([
          connection.access.folders(connection.login),
          connection.client.capabilities().catch(() => undefined),
        ]);
        if (capabilities) this.fileSupport.set(node.connection, capabilities.files);
        return nestFolders(node, folders);
      }, node);
      this.folders.set(node.connection, pending);
    }
    return pending;
  }

  private pageSize(): number {
    const size = vscode.workspace
      .getConfiguration(CONFIG_SECTION)
      .get<number>(CONFIG.treePageSize, DEFAULTS.treePageSize);
    return Number.isInteger(size) && size > 0 ? size : DEFAULTS.treePageSize;
  }

  private loadItems(node: FolderNode): Promise<ItemNode[] | MessageNode> {
    const key = folderKey(node);
    let pending = this.items.get(key);
    if (!pending) {
      pending = this.withProgress(async () => {
        const connection = await this.connections.get(node.connection);
        const records = await connection.client.readFolders({ ids: [node.folder.id] });
        // read/folder has returned items of other folders on real servers (TeamPass #2718).
        const own = records.filter((record) => record.folderId === node.folder.id);
        // The folder's right decides for all its items: nothing more is read.
        const readable = await connection.access.filterReadable(connection.login, own);
        return readable
          .map(
            (record): ItemNode => ({
              kind: 'item',
              connection: node.connection,
              item: summarizeItem(record),
              parent: node,
            }),
          )
          .sort((a, b) => a.item.label.localeCompare(b.item.label));
      }, node);
      this.items.set(key, pending);
    }
    return pending;
  }

  private loadFiles(node: ItemNode): Promise<FileNode[] | MessageNode> {
    const key = `${node.connection}/${node.item.id}`;
    let pending = this.files.get(key);
    if (!pending) {
      pending = this.withProgress(async () => {
        const connection = await this.connections.get(node.connection);
        const files = await connection.client.listFiles({ itemId: node.item.id });
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

  private async withProgress<T>(load: () => Promise<T>, parent: VaultNode): Promise<T | MessageNode> {
    try {
      return await vscode.window.withProgress({ location: { viewId: VIEWS.tree } }, load);
    } catch (error) {
      const connection = parent.kind === 'connection' ? parent.connection : parent.connection;
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

  private info(parent: VaultNode, text: string): MessageNode {
    return {
      kind: 'message',
      severity: 'info',
      connection: parent.kind === 'message' ? '' : parent.connection,
      text,
      parent,
    };
  }
}

function folderKey(node: FolderNode): string {
  return `${node.connection}/${node.folder.id}`;
}

/**
 * The menu tokens of a folder's right, from the core's rights table: ` add` (items and folders),
 * ` edit` (items, the folder itself, attachments), ` delete`. An `NE` folder gets add and delete.
 */
function contextRights(folder: FolderSummary): string {
  const rights = permissionsOf(folder.accessType);
  return `${rights.add ? ' add' : ''}${rights.edit ? ' edit' : ''}${rights.delete ? ' delete' : ''}`;
}

/** Whether an attachment of this media type opens as text (an unknown type is tried as text). */
function isTextType(type: string): boolean {
  const media = type.split(';')[0]?.trim().toLowerCase() ?? '';
  return media === '' || media.startsWith('text/') || (TEXT_MEDIA_TYPES as readonly string[]).includes(media);
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Nests folders by parent id, or by level in server order when the server sends no parent id. */
function nestFolders(root: ConnectionNode, folders: readonly Folder[]): FolderTree {
  const byId = new Map<number, FolderNode>();
  for (const folder of folders) {
    const complexity = Number((folder.raw as Record<string, unknown>).complexity_level);
    byId.set(folder.id, {
      kind: 'folder',
      connection: root.connection,
      folder: {
        id: folder.id,
        title: folder.title,
        accessType: folder.accessType,
        parentId: folder.parentId,
        level: folder.level,
        complexityLevel: Number.isFinite(complexity) ? complexity : undefined,
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
