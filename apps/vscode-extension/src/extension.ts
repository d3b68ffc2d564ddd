import type * as vscode from 'vscode';
import { Vaultline, type VaultlineApi } from './vaultline.ts';

const loadedAt = performance.now();

export function activate(context: vscode.ExtensionContext): VaultlineApi {
  const vaultline = new Vaultline(context, loadedAt, performance.now());
  context.subscriptions.push(vaultline);
  return vaultline.api;
}

export function deactivate(): void {}
