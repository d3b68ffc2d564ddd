import { describeRight, permissionsOf } from '@vaultline/protocol';
import * as vscode from 'vscode';
import type { ConnectionStore } from './connections.ts';
import { COMMANDS, CONFIG, CONFIG_SECTION, DEFAULTS, TEXT_MEDIA_TYPES } from './constants.ts';
import { type FixAction, noReadableFolderMessage } from './error-messages.ts';
import type { PresentationMode } from './presentation-mode.ts';
import {
  type FolderNode,
  type FolderSummary,
  folderName,
  type ItemNode,
  type MessageNode,
  type VaultNode,
} from './tree-nodes.ts';
import { folderKey, VaultModel } from './vault-model.ts';

/**
 * The Vault view: draws what {@link VaultModel} loads (connections, folders with the login's rights
 * in words, items, attachments, error rows with their fix), cuts very large folders to a page, and
 * masks logins and URLs in presentation mode. Passwords never enter it.
 */
export class VaultTree implements vscode.TreeDataProvider<VaultNode>, vscode.Disposable {
  /** What the view shows, loaded and cached. */
  readonly model: VaultModel;
  private readonly changed = new vscode.EventEmitter<VaultNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [];
  /** How many items of a folder are shown, when more than a page were shown on request. */
  private readonly shown = new Map<string, number>();
  private readonly presentation: PresentationMode;

  constructor(connections: ConnectionStore, presentation: PresentationMode) {
    this.model = new VaultModel(connections);
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
      this.model.clear();
      this.shown.clear();
      this.changed.fire(undefined);
      return;
    }
    this.model.forget(node);
    if (node.kind === 'connection') this.forgetShown(node.connection);
    if (node.kind === 'folder') this.shown.delete(folderKey(node));
    this.changed.fire(node);
  }

  /** What fixes a failed row: Connect again for a key problem, Retry otherwise. */
  fixOf(node: MessageNode): FixAction {
    return node.fix ?? { title: vscode.l10n.t('Retry'), command: COMMANDS.retry, args: [node] };
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
      this.model.forgetConnection(node.connection);
      this.forgetShown(node.connection);
      this.changed.fire(undefined);
      return;
    }
    this.refresh(parent);
  }

  getParent(node: VaultNode): VaultNode | undefined {
    return node.kind === 'connection' ? undefined : node.parent;
  }

  async getChildren(node?: VaultNode): Promise<VaultNode[]> {
    if (!node) return this.model.connectionList();
    switch (node.kind) {
      case 'connection': {
        const tree = await this.model.loadFolders(node);
        if (!('roots' in tree)) return [tree];
        // An empty branch would say nothing: say why, and who can change it.
        if (tree.roots.length === 0)
          return [{ ...this.info(node, noReadableFolderMessage(node.login)), severity: 'warning' }];
        // A server without attachments is said so once, under its root, rather than under each item.
        if (this.model.filesSupported(node.connection) === false)
          return [...tree.roots, { ...this.info(node, NO_ATTACHMENTS_NOTE()), note: 'no-attachments' }];
        return tree.roots;
      }
      case 'folder': {
        const items = await this.model.loadItems(node);
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
        const files = await this.model.loadFiles(node);
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
        const title = folderName(node.folder);
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
        const files = this.model.filesSupported(node.connection);
        const item = new vscode.TreeItem(
          entry.label,
          files === false ? vscode.TreeItemCollapsibleState.None : vscode.TreeItemCollapsibleState.Collapsed,
        );
        item.id = `c/${node.connection}/i/${entry.id}`;
        item.description = mask(entry.login);
        // The tooltip is built in resolveTreeItem, on hover: a folder of 10,000 items renders faster.
        item.iconPath = new vscode.ThemeIcon('key');
        // Menu tokens, in this order: the folder's rights, then what the server and the item have.
        const otp = entry.otp && this.model.otpSupported(node.connection);
        item.contextValue = `item${contextRights(node.parent.folder)}${files === false ? '' : ' files'}${otp ? ' otp' : ''}`;
        return item;
      }
      case 'file': {
        const item = new vscode.TreeItem(node.file.name, vscode.TreeItemCollapsibleState.None);
        item.id = `c/${node.connection}/a/${node.file.id}`;
        item.description = formatSize(node.file.size);
        item.tooltip = `${node.file.name} (${node.file.type || vscode.l10n.t('unknown type')}, ${formatSize(node.file.size)})`;
        item.iconPath = vscode.ThemeIcon.File;
        item.contextValue = 'file';
        // A click opens a text attachment and saves any other. While presenting it does neither (a
        // Save As dialog would show folders on the shared screen and offer the project folder,
        // where a secret file gets committed): it says why, with the way out.
        if (this.presentation.enabled)
          item.command = {
            command: COMMANDS.explainPresentation,
            title: vscode.l10n.t('Presentation mode is on'),
            arguments: [],
          };
        else {
          const opens = isTextType(node.file.type);
          item.command = {
            command: opens ? COMMANDS.openAttachment : COMMANDS.saveAttachment,
            title: opens ? vscode.l10n.t('Open Attachment') : vscode.l10n.t('Save Attachment As...'),
            arguments: [node],
          };
        }
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
        } else if (node.severity === 'warning') {
          item.iconPath = new vscode.ThemeIcon('warning');
          item.contextValue = 'warning';
          const root = this.model.root(node.connection);
          item.tooltip = `${node.text}\n${vscode.l10n.t('Click to refresh once that is done.')}`;
          item.command = {
            command: COMMANDS.refreshNode,
            title: vscode.l10n.t('Refresh'),
            arguments: root ? [root] : [],
          };
        } else if (node.more) {
          item.iconPath = new vscode.ThemeIcon('ellipsis');
          item.contextValue = 'more';
          item.command = {
            command: COMMANDS.showAllItems,
            title: vscode.l10n.t('Show all items'),
            arguments: [node],
          };
        } else if (node.note === 'no-attachments') {
          item.iconPath = new vscode.ThemeIcon('file');
          item.contextValue = 'note';
          item.tooltip = vscode.l10n.t(
            "This vault's server keeps no attachments (TeamPass 3 has none): items are shown without them, and attaching files is not offered.",
          );
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
    if (entry.tags.length > 0) lines.push(vscode.l10n.t('Tags: {0}', entry.tags.join(', ')));
    if (entry.otp && this.model.otpSupported(node.connection))
      lines.push(vscode.l10n.t('One-time code: yes (Copy One-Time Code copies the current one)'));
    if (entry.description && !this.presentation.enabled) lines.push(entry.description);
    return lines.join('\n');
  }

  /** The node of an item, loading its folder when needed: for reveal from search. */
  async findItem(connection: string, folderId: number, itemId: number): Promise<ItemNode | undefined> {
    const found = await this.model.findItem(connection, folderId, itemId);
    if (!found) return undefined;
    const folder = found.node.parent;
    if (found.index >= (this.shown.get(folderKey(folder)) ?? this.pageSize())) this.showAll(folder);
    return found.node;
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
  }

  private forgetShown(connection: string): void {
    for (const key of this.shown.keys()) if (key.startsWith(`${connection}/`)) this.shown.delete(key);
  }

  private pageSize(): number {
    const size = vscode.workspace
      .getConfiguration(CONFIG_SECTION)
      .get<number>(CONFIG.treePageSize, DEFAULTS.treePageSize);
    return Number.isInteger(size) && size > 0 ? size : DEFAULTS.treePageSize;
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

/** The note under the root of a connection whose server keeps no attachments. */
const NO_ATTACHMENTS_NOTE = () => vscode.l10n.t('No attachments on this vault');

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
