import {
  type CredentialFields,
  createRedactor,
  createVaultClient,
  credentialsFrom,
  memoryTokenCache,
  secretsOf,
  type VaultClient,
} from '@vaultline/protocol';
import * as vscode from 'vscode';
import { ConnectFlow } from '../connect-flow.ts';
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
  /** The user's password, where the vault signs users in (with `apiKey`, their personal API key). */
  password?: string;
  /** A personal access token, instead of the password and API key, where the vault allows them. */
  personalAccessToken?: string;
  /** Stores the connection even when the vault does not answer. */
  saveUnverified?: boolean;
  /** Replaces a connection of the same name without asking (scripts). */
  replace?: boolean;
  /** Starts from this existing connection (new credentials for it): its name, URL and login are prefilled. */
  reconnect?: string;
  /** Starts from the last failed attempt (the error's Retry button). */
  retry?: boolean;
}

/** Options of the disconnect command. */
export interface DisconnectOptions {
  /** Skips the question (scripts, tests). */
  confirmed?: boolean;
}

/**
 * Checks the credentials against the vault (unless told not to), then stores the connection. On a
 * vault that signs users in, the check's sign-in is the connection's: its session token is kept,
 * so that the view that loads next signs in no more.
 */
async function connectTo(
  services: CommandServices,
  settings: ConnectionSettings,
  credentials: CredentialFields,
  saveUnverified: boolean,
): Promise<boolean> {
  const { log, connections, notifier, context, connectFlow } = services;
  const { name, url, login } = settings;
  if (name === '' || login === '' || (!credentials.apiKey && !credentials.personalAccessToken))
    throw new UserFacingError(vscode.l10n.t('name, login and API key cannot be blank.'));
  let saved: ConnectionSettings = settings;
  const session = memoryTokenCache();
  if (!saveUnverified) {
    const secrets = secretsOf(credentials);
    let redact = createRedactor(secrets);
    let unregister: vscode.Disposable | undefined;
    let probe: VaultClient | undefined;
    try {
      probe = createVaultClient({
        baseUrl: url,
        auth: credentialsFrom({ ...credentials, login }),
        dialect: settings.dialect ?? 'auto',
        teampass3: { tokenCache: session },
        retry: { retries: 0 },
        onRequest: (e) => log.request(name, e),
      });
      redact = probe.redact;
      unregister = log.addRedactor(probe.redact);
      const capabilities = await probe.capabilities();
      if (
        capabilities.credentials === 'password' &&
        !credentials.password &&
        !credentials.personalAccessToken
      )
        throw new UserFacingError(
          vscode.l10n.t(
            '{0}: this vault signs each user in: give the password with the personal API key, or a personal access token.',
            name,
          ),
          { complete: true },
        );
      await probe.folders.list();
      if (capabilities.detected) saved = { ...settings, dialect: capabilities.dialect };
      await probe.dispose({ signOut: false });
    } catch (error) {
      // A session the check opened is closed again; what was typed is kept (never a secret), and
      // the Retry button starts from it.
      void probe?.dispose().catch(() => undefined);
      connectFlow.remember(
        settings,
        credentials.password !== undefined && credentials.password !== '' ? credentials.apiKey : undefined,
      );
      throw new UserFacingError(userMessage(error, name, redact), {
        complete: true,
        actions: [{ title: vscode.l10n.t('Retry'), command: COMMANDS.connect, args: [{ retry: true }] }],
      });
    } finally {
      unregister?.dispose();
    }
  }
  await connections.save(saved, credentials, { sessionToken: session.token });
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
    const known: Partial<ConnectionSettings> = {};
    if (args.name !== undefined) known.name = args.name;
    if (args.url !== undefined) known.url = args.url;
    if (args.login !== undefined) known.login = args.login;
    const scripted =
      args.name !== undefined && (args.apiKey !== undefined || args.personalAccessToken !== undefined);
    let start: Partial<ConnectionSettings> = {};
    if (args.reconnect !== undefined) start = connections.list().find((c) => c.name === args.reconnect) ?? {};
    else if (args.retry === true || !scripted) start = connectFlow.prefill ?? {};
    let settings: ConnectionSettings;
    let credentials: CredentialFields;
    if (scripted) {
      const url = (args.url ?? '').trim();
      // What the server speaks is stored with the connection, so that no window probes again.
      const { detection } = await ConnectFlow.profile(url);
      settings = {
        name: args.name!.trim(),
        url,
        login: (args.login ?? '').trim(),
        ...(detection.detected ? { dialect: detection.dialect } : {}),
      };
      credentials = {
        apiKey: args.apiKey?.trim(),
        password: args.password,
        personalAccessToken: args.personalAccessToken?.trim(),
      };
    } else {
      const answers = await connectFlow.ask(known, start, args.reconnect);
      if (!answers) return false;
      settings = answers.settings;
      credentials = answers.credentials;
    }
    try {
      if (!(await mayReplace(services, settings.name, scripted, args))) return false;
    } catch (error) {
      connectFlow.remember(settings);
      throw error;
    }
    return connectTo(services, settings, credentials, args.saveUnverified === true);
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
            detail: vscode.l10n.t(
              'Its API key (and password or session) is removed from this machine; the vault keeps everything.',
            ),
          },
          disconnect,
        );
        if (answer !== disconnect) return false;
      }
      await connections.remove(name);
      notifier.info(
        vscode.l10n.t('Disconnected "{0}"; its credentials were removed from this machine.', name),
      );
      return true;
    },
  ),
];
