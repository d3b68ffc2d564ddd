import {
  type AccessChecker,
  actingLoginOf,
  type CredentialFields,
  createAccessChecker,
  createRedactor,
  createVaultClient,
  credentialsFrom,
  DIALECTS,
  type Dialect,
  isVaultError,
  secretsOf,
  type TokenCache,
  type VaultClient,
} from '@vaultline/protocol';
import * as vscode from 'vscode';
import {
  CONFIG,
  CONFIG_SECTION,
  CONTEXT_KEYS,
  CREDENTIAL_KEY_PREFIXES,
  DEFAULTS,
  SECRET_KEYS,
} from './constants.ts';
import { UserFacingError } from './error-messages.ts';
import type { RequestLog } from './request-log.ts';

/** How long a disconnect waits for the vault to sign a session out before it forgets it anyway. */
const SIGN_OUT_WAIT_MS = 3000;

/** A connection as the machine-scoped setting stores it: no secret here, they are in SecretStorage. */
export interface ConnectionSettings {
  /** Unique name, shown as the tree root. */
  name: string;
  /** The vault's base URL. */
  url: string;
  /** The vault login the view acts for (its folders and rights); on servers with sign-in, the login that signs in. */
  login: string;
  /**
   * Which API the server speaks, as detected when connecting (`capabilities().dialect`): passed back
   * to the core so that no window probes again. Not a secret; never read to decide what to show.
   */
  dialect?: Dialect | undefined;
}

/** A connection that is ready to use. */
export interface Connection extends ConnectionSettings {
  client: VaultClient;
  /**
   * The core's one access layer: folder records for the tree (read/userfolders, no secrets) and
   * rights from the core's table, decided on the item's own folder; never the user's item list
   * (read/userpw, every password of the user).
   */
  access: AccessChecker;
  /**
   * The login rights are read and references resolved for: the core's acting login
   * (`identity().login`), the signed-in user where every call runs as that user, otherwise the
   * setting's login.
   */
  actingLogin(): Promise<string>;
}

/** Options of {@link ConnectionStore.save}. */
export interface SaveOptions {
  /** A session token the connection check signed in for: kept, so that the connection does not sign in again. */
  sessionToken?: string | undefined;
}

/**
 * The configured vault connections. URLs and logins live in a machine-scoped setting (a workspace
 * cannot point a stored key at another server); API keys, passwords, personal access tokens and
 * session tokens live in SecretStorage only.
 */
export class ConnectionStore implements vscode.Disposable {
  private readonly live = new Map<string, Connection>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when connections are added, removed or their settings change. */
  readonly onDidChange = this.changed.event;

  private readonly secrets: vscode.SecretStorage;
  private readonly log: RequestLog;

  constructor(secrets: vscode.SecretStorage, log: RequestLog) {
    this.secrets = secrets;
    this.log = log;
    this.disposables.push(
      this.changed,
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(`${CONFIG_SECTION}.${CONFIG.connections}`)) this.reset();
        if (event.affectsConfiguration(`${CONFIG_SECTION}.${CONFIG.requestTimeoutMs}`)) this.reset();
      }),
      // New credentials (here or in another window) make new clients; a new session token does not.
      secrets.onDidChange((event) => {
        if (CREDENTIAL_KEY_PREFIXES.some((prefix) => event.key.startsWith(prefix))) this.reset();
      }),
    );
    void this.updateContext();
  }

  /** The configured connections, in settings order, with invalid entries dropped. */
  list(): ConnectionSettings[] {
    const raw = vscode.workspace.getConfiguration(CONFIG_SECTION).get<unknown>(CONFIG.connections);
    if (!Array.isArray(raw)) return [];
    const seen = new Set<string>();
    const out: ConnectionSettings[] = [];
    for (const entry of raw) {
      if (typeof entry !== 'object' || entry === null) continue;
      const { name, url, login, dialect } = entry as Record<string, unknown>;
      if (typeof name !== 'string' || typeof url !== 'string' || typeof login !== 'string') continue;
      if (name === '' || seen.has(name)) continue;
      seen.add(name);
      const known = DIALECTS.find((candidate) => candidate === dialect);
      out.push(known === undefined ? { name, url, login } : { name, url, login, dialect: known });
    }
    return out;
  }

  /**
   * Returns a ready connection: client and access checker over the stored credentials. On servers
   * with sign-in the session token is kept in SecretStorage, so that a reload signs in no more.
   *
   * @throws {UserFacingError} when the connection or what it signs in with is missing.
   */
  async get(name: string): Promise<Connection> {
    const existing = this.live.get(name);
    if (existing) return existing;
    const settings = this.list().find((entry) => entry.name === name);
    if (!settings)
      throw new UserFacingError(
        vscode.l10n.t('no connection named "{0}". Run "Vaultline: Connect to a Vault".', name),
        {
          needsConnect: true,
        },
      );
    const credentials = await this.credentials(name);
    if (!credentials.apiKey && !credentials.personalAccessToken)
      throw new UserFacingError(
        vscode.l10n.t('no API key stored. Run "Vaultline: Connect to a Vault" again.'),
        {
          needsConnect: true,
        },
      );
    const timeoutMs = vscode.workspace
      .getConfiguration(CONFIG_SECTION)
      .get<number>(CONFIG.requestTimeoutMs, DEFAULTS.requestTimeoutMs);
    let client: VaultClient;
    try {
      client = createVaultClient({
        baseUrl: settings.url,
        auth: credentialsFrom({ ...credentials, login: settings.login }),
        dialect: settings.dialect ?? 'auto',
        teampass3: { tokenCache: this.tokenCache(name) },
        timeoutMs,
        onRequest: (event) => this.log.request(name, event),
      });
    } catch (error) {
      // A stored dialect whose sign-in needs what is not stored (a password): connect again.
      if (isVaultError(error, 'invalid_request') && settings.dialect !== undefined)
        throw new UserFacingError(
          vscode.l10n.t(
            'what this vault signs in with is not all stored (a password?). Run "Vaultline: Connect to a Vault" again.',
          ),
          { needsConnect: true },
        );
      throw error;
    }
    this.disposables.push(this.log.addRedactor(client.redact));
    const access = createAccessChecker(client);
    let acting: Promise<string> | undefined;
    const connection: Connection = {
      ...settings,
      client,
      access,
      actingLogin: () => {
        if (!acting) {
          const pending = actingLoginOf(client).then((login) => {
            if (login !== undefined) return login;
            throw new UserFacingError(
              vscode.l10n.t('no login to act for. Run "Vaultline: Connect to a Vault" again.'),
              { needsConnect: true },
            );
          });
          acting = pending;
          // A failure (the vault down, the sign-in refused) is not kept: the next call asks again.
          pending.catch(() => {
            if (acting === pending) acting = undefined;
          });
        }
        return acting;
      },
    };
    this.live.set(name, connection);
    return connection;
  }

  /** Forgets the cached rights of every connection: the next check reads them again. */
  invalidateRights(): void {
    for (const connection of this.live.values()) {
      connection.access.invalidate();
    }
  }

  /**
   * Adds or replaces a connection: its credentials to SecretStorage (any it no longer uses
   * removed, and any session token of the old ones), the rest to the machine setting.
   */
  async save(
    settings: ConnectionSettings,
    credentials: CredentialFields,
    options: SaveOptions = {},
  ): Promise<void> {
    // Every log line is redacted of these secrets from now on, whatever client logs them.
    this.disposables.push(this.log.addRedactor(createRedactor(secretsOf(credentials))));
    const { name } = settings;
    await this.keep(SECRET_KEYS.apiKey + name, credentials.apiKey);
    await this.keep(SECRET_KEYS.password + name, credentials.password);
    await this.keep(SECRET_KEYS.personalAccessToken + name, credentials.personalAccessToken);
    await this.keep(SECRET_KEYS.sessionToken + name, options.sessionToken);
    const others = this.list().filter((entry) => entry.name !== name);
    await this.writeList([...others, settings]);
    this.reset();
  }

  /**
   * Removes a connection and its secrets. A session the vault keeps for it is signed out first
   * (waiting a few seconds at most: a vault that does not answer lets its token run out).
   */
  async remove(name: string): Promise<void> {
    const connection = await this.get(name).catch(() => undefined);
    if (connection) {
      await Promise.race([
        connection.client.dispose().catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, SIGN_OUT_WAIT_MS)),
      ]);
    }
    await this.writeList(this.list().filter((entry) => entry.name !== name));
    for (const prefix of Object.values(SECRET_KEYS)) await this.secrets.delete(prefix + name);
    this.reset();
  }

  dispose(): void {
    // The session tokens stay in SecretStorage: the next window goes on without signing in.
    for (const connection of this.live.values())
      void connection.client.dispose({ signOut: false }).catch(() => undefined);
    for (const disposable of this.disposables) disposable.dispose();
  }

  /**
   * The secrets a connection signs in with, from SecretStorage (for the assistant's server
   * process); its login is in its settings.
   */
  async credentials(name: string): Promise<CredentialFields> {
    const [apiKey, password, personalAccessToken] = await Promise.all([
      this.secrets.get(SECRET_KEYS.apiKey + name),
      this.secrets.get(SECRET_KEYS.password + name),
      this.secrets.get(SECRET_KEYS.personalAccessToken + name),
    ]);
    return { apiKey, password, personalAccessToken };
  }

  /** Where the core keeps a connection's session token between windows: SecretStorage. */
  private tokenCache(name: string): TokenCache {
    const key = SECRET_KEYS.sessionToken + name;
    return {
      get: async () => await this.secrets.get(key),
      set: async (token) => {
        if (token === undefined) await this.secrets.delete(key);
        else await this.secrets.store(key, token);
      },
    };
  }

  /** Stores a secret, or removes it when there is none. */
  private async keep(key: string, value: string | undefined): Promise<void> {
    if (value === undefined || value === '') await this.secrets.delete(key);
    else await this.secrets.store(key, value);
  }

  private async writeList(list: ConnectionSettings[]): Promise<void> {
    await vscode.workspace
      .getConfiguration(CONFIG_SECTION)
      .update(CONFIG.connections, list, vscode.ConfigurationTarget.Global);
  }

  private reset(): void {
    this.live.clear();
    void this.updateContext();
    this.changed.fire();
  }

  private async updateContext(): Promise<void> {
    const count = this.list().length;
    await vscode.commands.executeCommand('setContext', CONTEXT_KEYS.connectionCount, count);
    await vscode.commands.executeCommand('setContext', CONTEXT_KEYS.connected, count > 0);
  }
}
