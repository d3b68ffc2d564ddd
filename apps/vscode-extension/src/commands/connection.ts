import { createRedactor, createVaultClient } from '@vaultline/protocol';
import * as vscode from 'vscode';
import type { ConnectionSettings } from '../connections.ts';
import { COMMANDS, KEYRING_WARNED } from '../constants.ts';
import { UserFacingError, userMessage } from '../error-messages.ts';
import { keyringWarning } from '../keyring-warning.ts';
import type { VaultNode } from '../tree-nodes.ts';
import { type CommandGroup, type CommandServices, command } from './command.ts';

/** Arguments of the connect command; whatever is missing is asked for. */
export interface ConnectArgs {
  name?: string;
  url?: string;
  login?: string;
  apiKey?: string;
  /** Stores the connection even when the vault does not answer. */
  saveUnverified?: boolean;
}

/** Checks the key against the vault (unless told not to), then stores the connection. */
async function connectTo(
  services: CommandServices,
  settings: ConnectionSettings,
  apiKey: string,
  saveUnverified: boolean,
): Promise<boolean> {
  const { log, connections, notifier, context } = services;
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
}

/** Connect and disconnect. */
export const connectionCommands: CommandGroup = (services) => [
  command(COMMANDS.connect, 'Connect', async (args: ConnectArgs = {}) => {
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
      services,
      { name: name.trim(), url: url.trim(), login: login.trim() },
      apiKey.trim(),
      args.saveUnverified === true,
    );
  }),
  command(COMMANDS.disconnect, 'Disconnect', async (node?: VaultNode) => {
    const { connections } = services;
    const name =
      node && node.kind !== 'message'
        ? node.connection
        : await vscode.window.showQuickPick(connections.list().map((c) => c.name));
    if (!name) return false;
    await connections.remove(name);
    return true;
  }),
];
