import { createRedactor, createVaultClient } from '@vaultline/protocol';
import * as vscode from 'vscode';
import type { ConnectionSettings } from '../connections.ts';
import { COMMANDS, KEYRING_WARNED } from '../constants.ts';
import { UserFacingError, userMessage } from '../error-messages.ts';
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
  /** Replaces a connection of the same name without asking (scripts). */
  replace?: boolean;
  /** Starts from this existing connection (a new key for it): its name, URL and login are prefilled. */
  reconnect?: string;
  /** Starts from the last failed attempt (the error's Retry button). */
  retry?: boolean;
}

/** Options of the disconnect command. */
export interface DisconnectOptions {
  /** Skips the question (scripts, tests). */
  confirmed?: boolean;
}

/** Checks the key against the vault (unless told not to), then stores the connection. */
async function connectTo(
  services: CommandServices,
  settings: ConnectionSettings,
  apiKey: string,
  saveUnverified: boolean,
): Promise<boolean> {
  const { log, connections, notifier, context, connectFlow } = services;
  const { name, url, login } = settings;
  if (name === '' || login === '' || apiKey === '')
    throw new UserFacingError(vscode.l10n.t('name, login and API key cannot be blank.'));
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
      // What was typed is kept (never the key); the Retry button starts from it.
      connectFlow.remember(settings);
      throw new UserFacingError(userMessage(error, name, redactKey), {
        complete: true,
        actions: [{ title: vscode.l10n.t('Retry'), command: COMMANDS.connect, args: [{ retry: true }] }],
      });
    } finally {
      unregister?.dispose();
    }
  }
  await connections.save({ name, url, login }, apiKey);
  connectFlow.forget();
  log.info(`connected "${name}" as ${login}`);
  notifier.status(vscode.l10n.t('Vaultline: connected "{0}" as {1}', name, login));
  const warning = services.platform.keyringWarning();
  if (warning && !context.globalState.get<boolean>(KEYRING_WARNED)) {
    notifier.warning(warning);
    await context.globalState.update(KEYRING_WARNED, true);
  }
  return true;
}

/** Asks before a connection of the same name is replaced; scripts must say `replace: true`. */
async function mayReplace(
  services: CommandServices,
  name: string,
  scripted: boolean,
  args: ConnectArgs,
): Promise<boolean> {
  if (args.replace === true || args.reconnect === name) return true;
  if (!services.connections.list().some((c) => c.name === name)) return true;
  if (scripted) {
    throw new UserFacingError(
      vscode.l10n.t('a connection named "{0}" exists. Disconnect it first or choose another name.', name),
    );
  }
  const replace = vscode.l10n.t('Replace');
  const answer = await vscode.window.showWarningMessage(
    vscode.l10n.t('Replace the connection "{0}"?', name),
    {
      modal: true,
      detail: vscode.l10n.t('Its URL, login and API key are replaced by the ones you entered.'),
    },
    replace,
  );
  return answer === replace;
}

/** Connect and disconnect. */
export const connectionCommands: CommandGroup = (services) => [
  command(COMMANDS.connect, vscode.l10n.t('Connect'), async (raw: unknown = {}) => {
    const { connections, connectFlow } = services;
    // From a row of the view (an error row's inline Connect): a new key for that connection.
    const args: ConnectArgs =
      typeof raw === 'object' && raw !== null && 'kind' in raw && 'connection' in raw
        ? { reconnect: String((raw as VaultNode).connection) }
        : typeof raw === 'object' && raw !== null
          ? (raw as ConnectArgs)
          : {};
    const known: Partial<ConnectionSettings> & { apiKey?: string } = {};
    if (args.name !== undefined) known.name = args.name;
    if (args.url !== undefined) known.url = args.url;
    if (args.login !== undefined) known.login = args.login;
    const scripted = args.name !== undefined && args.apiKey !== undefined;
    let start: Partial<ConnectionSettings> = {};
    if (args.reconnect !== undefined) start = connections.list().find((c) => c.name === args.reconnect) ?? {};
    else if (args.retry === true || !scripted) start = connectFlow.prefill ?? {};
    let settings: ConnectionSettings;
    let apiKey: string;
    if (scripted) {
      settings = { name: args.name!.trim(), url: (args.url ?? '').trim(), login: (args.login ?? '').trim() };
      apiKey = args.apiKey!.trim();
    } else {
      const answers = await connectFlow.ask(known, start, args.reconnect);
      if (!answers) return false;
      settings = answers.settings;
      apiKey = args.apiKey?.trim() ?? answers.apiKey;
    }
    try {
      if (!(await mayReplace(services, settings.name, scripted, args))) return false;
    } catch (error) {
      connectFlow.remember(settings);
      throw error;
    }
    return connectTo(services, settings, apiKey, args.saveUnverified === true);
  }),
  command(
    COMMANDS.disconnect,
    vscode.l10n.t('Disconnect'),
    async (node?: VaultNode, options: DisconnectOptions = {}) => {
      const { connections, notifier } = services;
      const name =
        node && node.kind !== 'message'
          ? node.connection
          : await vscode.window.showQuickPick(
              connections.list().map((c) => c.name),
              { placeHolder: vscode.l10n.t('Connection to remove') },
            );
      if (!name) return false;
      if (!options.confirmed) {
        const disconnect = vscode.l10n.t('Disconnect');
        const answer = await vscode.window.showWarningMessage(
          vscode.l10n.t('Disconnect "{0}"?', name),
          {
            modal: true,
            detail: vscode.l10n.t('Its API key is removed from this machine; the vault keeps everything.'),
          },
          disconnect,
        );
        if (answer !== disconnect) return false;
      }
      await connections.remove(name);
      notifier.info(vscode.l10n.t('Disconnected "{0}"; its API key was removed from this machine.', name));
      return true;
    },
  ),
];
