import { createRedactor, createVaultClient } from '@vaultline/protocol';
import * as vscode from 'vscode';
import { Attachments } from './attachments.ts';
import { ClipboardCopier } from './clipboard-copy.ts';
import { type ConnectionSettings, ConnectionStore } from './connections.ts';
import { COMMANDS, FIELD_LABELS, ITEM_FIELDS, type ItemField, KEYRING_WARNED, VIEWS } from './constants.ts';
import { UserFacingError, userMessage } from './error-messages.ts';
import { insertField } from './insert-field.ts';
import { type ItemRef, requireItemRef, toItemRef } from './item-ref.ts';
import { ItemSearch } from './item-search.ts';
import { keyringWarning } from './keyring-warning.ts';
import { Notifier } from './notifier.ts';
import { generatePassword } from './password-generator.ts';
import { PresentationMode } from './presentation-mode.ts';
import { RequestLog } from './request-log.ts';
import { fetchField } from './secret-fields.ts';
import type { FileNode, FolderNode, MessageNode, VaultNode } from './tree-nodes.ts';
import { askBindings, type EnvBinding, openVaultTerminal } from './vault-terminal.ts';
import { VaultTree } from './vault-tree.ts';
import {
  type DeleteOptions,
  type FolderValues,
  type ItemChange,
  type NewItem,
  VaultWriter,
} from './vault-writer.ts';

/** Arguments of the connect command; whatever is missing is asked for. */
export interface ConnectArgs {
  name?: string;
  url?: string;
  login?: string;
  apiKey?: string;
  /** Stores the connection even when the vault does not answer. */
  saveUnverified?: boolean;
}

/** What the extension exposes to other extensions and to its own integration tests. */
export interface VaultlineApi {
  readonly tree: VaultTree;
  readonly treeView: vscode.TreeView<VaultNode>;
  readonly search: ItemSearch;
  readonly log: RequestLog;
  readonly notifier: Notifier;
  readonly clipboard: ClipboardCopier;
  /** From loading the bundle to the end of activation, in ms. */
  readonly activationMs: number;
  /** The part of it spent in `activate()`, in ms. */
  readonly activateBodyMs: number;
}

/** The extension's root: builds every part and registers every command, view and provider. */
export class Vaultline implements vscode.Disposable {
  readonly api: VaultlineApi;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(context: vscode.ExtensionContext, loadedAt: number, activateCalledAt: number) {
    const log = this.own(new RequestLog());
    const notifier = new Notifier();
    const presentation = this.own(new PresentationMode());
    const connections = this.own(new ConnectionStore(context.secrets, log));
    const tree = this.own(new VaultTree(connections, presentation));
    const treeView = this.own(
      vscode.window.createTreeView(VIEWS.tree, {
        treeDataProvider: tree,
        showCollapseAll: true,
        canSelectMany: true,
      }),
    );
    const search = this.own(new ItemSearch(connections, tree, presentation));
    const clipboard = this.own(new ClipboardCopier());
    const attachments = this.own(new Attachments(connections, presentation));
    const writer = new VaultWriter(connections);

    const run = <A extends unknown[], R>(
      id: string,
      action: string,
      handler: (...args: A) => Promise<R> | R,
    ) =>
      this.own(
        vscode.commands.registerCommand(id, async (...args: A): Promise<R | undefined> => {
          try {
            return await handler(...args);
          } catch (error) {
            const message = userMessage(error, action);
            log.info(`error: ${message}`);
            notifier.error(message);
            return undefined;
          }
        }),
      );

    // No target (palette, keybinding): search. A target that names no item is an error, not a search.
    const chooseItem = async (target: unknown, title: string): Promise<ItemRef | undefined> =>
      target === undefined ? search.pick(title) : requireItemRef(target);
    const chooseField = async (field: unknown, exclude: ItemField[] = []): Promise<ItemField | undefined> => {
      if (typeof field === 'string' && (ITEM_FIELDS as readonly string[]).includes(field))
        return field as ItemField;
      if (field !== undefined) {
        throw new UserFacingError(
          `expected one of ${ITEM_FIELDS.join(', ')}, received ${JSON.stringify(field)?.slice(0, 40)}.`,
        );
      }
      const picked = await vscode.window.showQuickPick(
        ITEM_FIELDS.filter((f) => !exclude.includes(f)).map((f) => ({ label: FIELD_LABELS[f], field: f })),
        { placeHolder: 'Which field?' },
      );
      return picked?.field;
    };
    const doInsert = async (target: unknown, field: unknown) => {
      const ref = await chooseItem(target, 'Insert a vault value');
      if (!ref) return 0;
      const chosen = await chooseField(field, presentation.enabled ? ['password'] : []);
      if (!chosen) return 0;
      const count = await insertField(connections, presentation, ref, chosen);
      notifier.status(`Vaultline: inserted ${FIELD_LABELS[chosen].toLowerCase()} at ${count} cursor(s)`);
      return count;
    };
    const doCopy = async (target: unknown, field: unknown, seconds?: unknown) => {
      const ref = await chooseItem(target, 'Copy a vault value');
      if (!ref) return undefined;
      const chosen = await chooseField(field);
      if (!chosen) return undefined;
      const value = await fetchField(connections, ref, chosen);
      if (value === '') throw new UserFacingError(`the item has no ${FIELD_LABELS[chosen].toLowerCase()}.`);
      return clipboard.copy(value, FIELD_LABELS[chosen], seconds);
    };
    const asFolder = (node: unknown): FolderNode => {
      if ((node as VaultNode | undefined)?.kind !== 'folder')
        throw new UserFacingError('choose a folder in the Vaultline view.');
      return node as FolderNode;
    };
    const asFile = (node: unknown): FileNode => {
      if ((node as VaultNode | undefined)?.kind !== 'file')
        throw new UserFacingError('choose an attachment in the Vaultline view.');
      return node as FileNode;
    };
    const folderOf = (target: unknown): FolderNode | undefined =>
      (target as VaultNode | undefined)?.kind === 'item'
        ? (target as { parent: FolderNode }).parent
        : undefined;
    const refreshAround = (node: VaultNode | undefined) => tree.refresh(node);

    run(COMMANDS.connect, 'Connect', async (args: ConnectArgs = {}) => {
      const name =
        args.name ??
        (await vscode.window.showInputBox({
          prompt: 'A name for this vault connection',
          value: 'vault',
          ignoreFocusOut: true,
        }));
      if (!name) return false;
      const url =
        args.url ??
        (await vscode.window.showInputBox({
          prompt: 'Vault base URL',
          placeHolder: 'https://vault.example.com',
          ignoreFocusOut: true,
        }));
      if (!url) return false;
      const login =
        args.login ??
        (await vscode.window.showInputBox({ prompt: 'Vault login the view acts for', ignoreFocusOut: true }));
      if (!login) return false;
      const apiKey =
        args.apiKey ??
        (await vscode.window.showInputBox({ prompt: 'API key', password: true, ignoreFocusOut: true }));
      if (!apiKey) return false;
      return connectTo(
        { name: name.trim(), url: url.trim(), login: login.trim() },
        apiKey.trim(),
        args.saveUnverified === true,
      );
    });
    const connectTo = async (settings: ConnectionSettings, apiKey: string, saveUnverified: boolean) => {
      const { name, url, login } = settings;
      if (name === '' || login === '' || apiKey === '')
        throw new UserFacingError('name, login and API key cannot be blank.');
      if (!saveUnverified) {
        const redactKey = createRedactor([apiKey]);
        let unregister: vscode.Disposable | undefined;
        try {
          const probe = createVaultClient({
            baseUrl: url,
            apiKey,
            retries: 0,
            onRequest: (e) => log.request(name, e),
          });
          unregister = log.addRedactor(probe.redact);
          await probe.readUserFolders({ login });
        } catch (error) {
          throw new UserFacingError(userMessage(error, name, redactKey));
        } finally {
          unregister?.dispose();
        }
      }
      await connections.save({ name, url, login }, apiKey);
      log.info(`connected "${name}" as ${login}`);
      const warning = keyringWarning();
      if (warning && !context.globalState.get<boolean>(KEYRING_WARNED)) {
        notifier.warning(warning);
        await context.globalState.update(KEYRING_WARNED, true);
      }
      return true;
    };
    run(COMMANDS.disconnect, 'Disconnect', async (node?: VaultNode) => {
      const name =
        node && node.kind !== 'message'
          ? node.connection
          : await vscode.window.showQuickPick(connections.list().map((c) => c.name));
      if (!name) return false;
      await connections.remove(name);
      return true;
    });
    run(COMMANDS.refresh, 'Refresh', (node?: VaultNode) => refreshAround(node));
    run(COMMANDS.retry, 'Retry', (node: MessageNode) => tree.retry(node));
    run(COMMANDS.showAllItems, 'Show all items', (node: MessageNode) => {
      if (node?.more) tree.showAll(node.more);
    });
    run(COMMANDS.search, 'Search', async () => {
      const ref = await search.pick();
      if (!ref) return undefined;
      const actions = [
        ...ITEM_FIELDS.filter((f) => !(presentation.enabled && f === 'password')).map((f) => ({
          label: `$(insert) Insert ${FIELD_LABELS[f]}`,
          run: () => doInsert(ref, f),
        })),
        ...ITEM_FIELDS.map((f) => ({ label: `$(copy) Copy ${FIELD_LABELS[f]}`, run: () => doCopy(ref, f) })),
        { label: '$(list-tree) Reveal in the Vaultline view', run: () => this.reveal(tree, treeView, ref) },
      ];
      const action = await vscode.window.showQuickPick(actions, { placeHolder: ref.label ?? '' });
      return action?.run();
    });
    run(COMMANDS.insertField, 'Insert', (target?: unknown, field?: unknown) => doInsert(target, field));
    run(COMMANDS.insertLogin, 'Insert login', (target?: unknown) => doInsert(target, 'login'));
    run(COMMANDS.insertPassword, 'Insert password', (target?: unknown) => doInsert(target, 'password'));
    run(COMMANDS.insertUrl, 'Insert URL', (target?: unknown) => doInsert(target, 'url'));
    run(COMMANDS.insertEmail, 'Insert email', (target?: unknown) => doInsert(target, 'email'));
    run(COMMANDS.copyField, 'Copy', (target?: unknown, field?: unknown, seconds?: number) =>
      doCopy(target, field, seconds),
    );
    run(COMMANDS.copyLogin, 'Copy login', (target?: unknown) => doCopy(target, 'login'));
    run(COMMANDS.copyPassword, 'Copy password', (target?: unknown) => doCopy(target, 'password'));
    run(COMMANDS.copyUrl, 'Copy URL', (target?: unknown) => doCopy(target, 'url'));
    run(COMMANDS.copyEmail, 'Copy email', (target?: unknown) => doCopy(target, 'email'));
    run(COMMANDS.addItem, 'Add item', async (node: unknown, values?: NewItem) => {
      const folder = asFolder(node);
      const id = await writer.addItem(folder, values);
      if (id !== undefined) tree.refresh(folder);
      return id;
    });
    run(COMMANDS.editItem, 'Edit item', async (target: unknown, change?: ItemChange) => {
      const ref = requireItemRef(target);
      const done = await writer.editItem(ref, folderOf(target), change);
      if (done) tree.refresh(folderOf(target));
      return done;
    });
    run(COMMANDS.deleteItem, 'Delete item', async (target: unknown, options?: DeleteOptions) => {
      const ref = requireItemRef(target);
      const done = await writer.deleteItem(ref, options);
      if (done) tree.refresh(folderOf(target));
      return done;
    });
    run(COMMANDS.addFolder, 'Add folder', async (node: unknown, values?: FolderValues) => {
      const parent = node as VaultNode | undefined;
      if (!parent || (parent.kind !== 'folder' && parent.kind !== 'connection'))
        throw new UserFacingError('choose a connection or folder in the Vaultline view.');
      const id = await writer.addFolder(parent, values);
      if (id !== undefined) {
        tree.refresh(parent.kind === 'folder' ? undefined : parent);
        notifier.info(`Folder created (id ${id}). A vault administrator grants access to it.`);
      }
      return id;
    });
    run(COMMANDS.editFolder, 'Edit folder', async (node: unknown, values?: FolderValues) => {
      const done = await writer.editFolder(asFolder(node), values);
      if (done) tree.refresh();
      return done;
    });
    run(COMMANDS.deleteFolder, 'Delete folder', async (node: unknown, options?: DeleteOptions) => {
      const done = await writer.deleteFolder(asFolder(node), options);
      if (done) tree.refresh();
      return done;
    });
    run(COMMANDS.generatePassword, 'Generate password', async (node?: unknown) => {
      const level =
        (node as VaultNode | undefined)?.kind === 'folder'
          ? (node as FolderNode).folder.complexityLevel
          : undefined;
      return clipboard.copy(generatePassword(level), 'Generated password');
    });
    run(COMMANDS.openAttachment, 'Open attachment', (node: unknown) => attachments.open(asFile(node)));
    run(COMMANDS.saveAttachment, 'Save attachment', (node: unknown, target?: vscode.Uri) =>
      attachments.save(asFile(node), target),
    );
    run(COMMANDS.uploadAttachment, 'Upload attachment', async (target: unknown, source?: vscode.Uri) => {
      const id = await attachments.upload(requireItemRef(target), source);
      if (id !== undefined && (target as VaultNode).kind === 'item') tree.refresh(target as VaultNode);
      return id;
    });
    run(COMMANDS.togglePresentationMode, 'Presentation mode', async (on?: boolean) => {
      await presentation.toggle(typeof on === 'boolean' ? on : undefined);
      notifier.status(`Vaultline presentation mode ${presentation.enabled ? 'on' : 'off'}`);
      return presentation.enabled;
    });
    run(
      COMMANDS.runWithValues,
      'Run with vault values',
      async (target?: unknown, selected?: unknown, bindings?: EnvBinding[]) => {
        if (!vscode.workspace.isTrusted)
          throw new UserFacingError('trust this workspace before running commands with vault values.');
        let chosen = bindings;
        if (!chosen) {
          const nodes = Array.isArray(selected) && selected.length > 0 ? selected : [target];
          let refs = nodes.map(toItemRef).filter((ref): ref is ItemRef => ref !== undefined);
          if (refs.length === 0) {
            const picked = await search.pick('Item whose values the terminal gets');
            refs = picked ? [picked] : [];
          }
          if (refs.length === 0) return undefined;
          chosen = await askBindings(refs);
        }
        if (!chosen) return undefined;
        return openVaultTerminal(connections, chosen);
      },
    );
    run(COMMANDS.showLog, 'Show log', () => log.show());

    this.api = {
      tree,
      treeView,
      search,
      log,
      notifier,
      clipboard,
      activationMs: performance.now() - loadedAt,
      activateBodyMs: performance.now() - activateCalledAt,
    };
  }

  dispose(): void {
    for (const disposable of this.disposables.reverse()) disposable.dispose();
  }

  private own<T extends vscode.Disposable>(disposable: T): T {
    this.disposables.push(disposable);
    return disposable;
  }

  private async reveal(tree: VaultTree, view: vscode.TreeView<VaultNode>, ref: ItemRef): Promise<void> {
    if (ref.folderId === undefined) return;
    const node = await tree.findItem(ref.connection, ref.folderId, ref.itemId);
    if (node) await view.reveal(node, { select: true, focus: true, expand: false });
  }
}
