import type * as vscode from 'vscode';
import { terminalCommands } from './commands/terminal.ts';
import { keyringWarning } from './keyring-warning.ts';
import { LocalHistory } from './secrets/local-history.ts';
import { Vaultline, type VaultlineApi } from './vaultline.ts';

const loadedAt = performance.now();

/** The desktop and remote entry (Node extension host): everything, the terminal included. */
export function activate(context: vscode.ExtensionContext): VaultlineApi {
  const vaultline = new Vaultline(context, {
    loadedAt,
    activateCalledAt: performance.now(),
    platform: {
      kind: 'node',
      keyringWarning: () => keyringWarning(process.env, process.platform),
      localHistory: LocalHistory.locate(context),
    },
    hostCommands: [terminalCommands],
  });
  context.subscriptions.push(vaultline);
  return vaultline.api;
}

export function deactivate(): void {}
