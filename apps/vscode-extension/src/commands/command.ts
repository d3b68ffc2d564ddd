import type * as vscode from 'vscode';
import type { Attachments } from '../attachments.ts';
import type { ClipboardCopier } from '../clipboard-copy.ts';
import type { ConnectFlow } from '../connect-flow.ts';
import type { ConnectionStore } from '../connections.ts';
import type { ItemSearch } from '../item-search.ts';
import type { Notifier } from '../notifier.ts';
import type { PresentationMode } from '../presentation-mode.ts';
import type { RevealedValues } from '../references/revealed-values.ts';
import type { RequestLog } from '../request-log.ts';
import type { LocalHistory } from '../secrets/local-history.ts';
import type { VaultNode } from '../tree-nodes.ts';
import type { VaultTree } from '../vault-tree.ts';
import type { VaultWriter } from '../vault-writer.ts';

/** What differs between the Node host (desktop, remote) and the web worker host. */
export interface HostPlatform {
  /** `node` or `web`. */
  readonly kind: 'node' | 'web';
  /** A warning when SecretStorage has no OS keyring behind it, once per installation. */
  keyringWarning(): string | undefined;
  /** VS Code's Local History, where this host can reach it (not in a web worker). */
  readonly localHistory?: LocalHistory | undefined;
}

/** The parts of the extension that commands act on, built once in `vaultline.ts`. */
export interface CommandServices {
  readonly context: vscode.ExtensionContext;
  readonly platform: HostPlatform;
  readonly log: RequestLog;
  readonly notifier: Notifier;
  readonly presentation: PresentationMode;
  readonly connections: ConnectionStore;
  readonly connectFlow: ConnectFlow;
  readonly tree: VaultTree;
  readonly treeView: vscode.TreeView<VaultNode>;
  readonly search: ItemSearch;
  readonly clipboard: ClipboardCopier;
  readonly attachments: Attachments;
  readonly writer: VaultWriter;
  /** Values a reference's hover shows after "Reveal", for the clear delay. */
  readonly revealed: RevealedValues;
}

/** One command: its id (declared in package.json), the action named in its errors, its handler. */
export interface VaultlineCommand {
  readonly id: string;
  /** Put first in the error a failure shows ("Insert: …"). */
  readonly action: string;
  readonly run: (...args: unknown[]) => unknown;
}

/** A file of commands: a function of the services that returns its commands. */
export type CommandGroup = (services: CommandServices) => VaultlineCommand[];

/**
 * Declares a command with typed arguments. Commands are called with whatever a menu, a keybinding
 * or a script passes, so each handler still checks what it receives.
 */
export function command<A extends unknown[]>(
  id: string,
  action: string,
  run: (...args: A) => unknown,
): VaultlineCommand {
  return { id, action, run: run as (...args: unknown[]) => unknown };
}
