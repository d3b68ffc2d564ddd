import type * as vscode from 'vscode';
import { keyringWarning } from './keyring-warning.ts';
import { Vaultline, type VaultlineApi } from './vaultline.ts';

const loadedAt = performance.now();

/**
 * The web entry (VS Code for the Web, the web worker extension host): everything but the terminal
 * with vault values, which has no process environment to hold them there. Nothing on this path
 * imports a Node module.
 */
export function activate(context: vscode.ExtensionContext): VaultlineApi {
  const vaultline = new Vaultline(context, {
    loadedAt,
    activateCalledAt: performance.now(),
    platform: { kind: 'web', keyringWarning: () => keyringWarning({}, 'web') },
  });
  context.subscriptions.push(vaultline);
  return vaultline.api;
}

export function deactivate(): void {}
