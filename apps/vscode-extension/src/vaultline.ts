import * as vscode from 'vscode';
import { type AssistantServers, registerAssistantServers } from './assistant/mcp-servers.ts';
import { Attachments } from './attachments.ts';
import { ClipboardCopier } from './clipboard-copy.ts';
import {
  COMMAND_GROUPS,
  type CommandGroup,
  type CommandServices,
  type HostPlatform,
  registerCommands,
} from './commands/index.ts';
import { ConnectFlow } from './connect-flow.ts';
import { ConnectionStore } from './connections.ts';
import { CONTEXT_KEYS, VIEWS } from './constants.ts';
import { ItemSearch } from './item-search.ts';
import { Notifier } from './notifier.ts';
import { PresentationMode } from './presentation-mode.ts';
import { type ReferenceFeatures, registerReferences } from './references/register-references.ts';
import { RevealedValues } from './references/revealed-values.ts';
import { RequestLog } from './request-log.ts';
import type { LocalHistory } from './secrets/local-history.ts';
import { registerSecrets } from './secrets/register-secrets.ts';
import type { SecretDiagnostics } from './secrets/secret-diagnostics.ts';
import type { VaultNode } from './tree-nodes.ts';
import { VaultTree } from './vault-tree.ts';
import { VaultWriter } from './vault-writer.ts';

export type { ConnectArgs } from './commands/connection.ts';

/** What the extension exposes to other extensions and to its own integration tests. */
export interface VaultlineApi {
  readonly tree: VaultTree;
  readonly treeView: vscode.TreeView<VaultNode>;
  readonly search: ItemSearch;
  readonly log: RequestLog;
  readonly notifier: Notifier;
  readonly clipboard: ClipboardCopier;
  readonly presentation: PresentationMode;
  /** References in files: diagnostics and the debug configuration provider. */
  readonly references: ReferenceFeatures;
  /** Secret detection in files. */
  readonly secrets: SecretDiagnostics;
  readonly connectFlow: ConnectFlow;
  /** Adds, edits and deletes items and folders; remembers the prompts it showed. */
  readonly writer: VaultWriter;
  /** VS Code's Local History, where this host reaches it (not in a browser). */
  readonly localHistory: LocalHistory | undefined;
  /** The connections offered to VS Code's agent as MCP servers, where a host can start them. */
  readonly assistant: AssistantServers | undefined;
  /** From loading the bundle to the end of activation, in ms. */
  readonly activationMs: number;
  /** The part of it spent in `activate()`, in ms. */
  readonly activateBodyMs: number;
}

/** What an entry (desktop/remote, or web) passes in. */
export interface VaultlineOptions {
  /** `performance.now()` when the bundle was loaded. */
  loadedAt: number;
  /** `performance.now()` when `activate()` was called. */
  activateCalledAt: number;
  /** What this host can do. */
  platform: HostPlatform;
  /** Command groups only this host has (the terminal on desktop and remote hosts). */
  hostCommands?: readonly CommandGroup[];
}

/** The extension's root: builds every part once and registers every command from one list. */
export class Vaultline implements vscode.Disposable {
  readonly api: VaultlineApi;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(context: vscode.ExtensionContext, options: VaultlineOptions) {
    const log = this.own(new RequestLog());
    log.info(
      options.platform.kind === 'web'
        ? 'Vaultline activated in the web worker extension host (no terminal features)'
        : 'Vaultline activated in the Node extension host',
    );
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
    const clipboard = this.own(new ClipboardCopier(notifier));
    const attachments = this.own(new Attachments(connections, presentation));
    const writer = new VaultWriter(connections);
    const connectFlow = this.own(new ConnectFlow(connections));
    const revealed = this.own(new RevealedValues(presentation));
    const services: CommandServices = {
      context,
      platform: options.platform,
      connectFlow,
      log,
      notifier,
      presentation,
      connections,
      tree,
      treeView,
      search,
      clipboard,
      attachments,
      writer,
      revealed,
    };
    const groups = [...COMMAND_GROUPS, ...(options.hostCommands ?? [])];
    void vscode.commands.executeCommand(
      'setContext',
      CONTEXT_KEYS.terminal,
      options.platform.kind === 'node',
    );
    for (const registration of registerCommands(
      groups.flatMap((group) => group(services)),
      log,
      notifier,
    ))
      this.own(registration);
    const references = registerReferences(services, (disposable) => this.own(disposable));
    const secrets = registerSecrets((disposable) => this.own(disposable));
    // A stdio server is a process: only where the extension host can start one.
    const assistant =
      options.platform.kind === 'node'
        ? registerAssistantServers(connections, (disposable) => this.own(disposable))
        : undefined;

    this.api = {
      tree,
      treeView,
      search,
      log,
      notifier,
      clipboard,
      presentation,
      references,
      secrets,
      connectFlow,
      writer,
      localHistory: options.platform.localHistory,
      assistant,
      activationMs: performance.now() - options.loadedAt,
      activateBodyMs: performance.now() - options.activateCalledAt,
    };
  }

  dispose(): void {
    for (const disposable of this.disposables.reverse()) disposable.dispose();
  }

  private own<T extends vscode.Disposable>(disposable: T): T {
    this.disposables.push(disposable);
    return disposable;
  }
}
