import {
  type AccessChecker,
  createAccessChecker,
  createVaultClient,
  type VaultClient,
} from '@vaultline/protocol';
import * as vscode from 'vscode';
import { CONFIG, CONFIG_SECTION, CONTEXT_KEYS, DEFAULTS, SECRET_KEY_PREFIX } from './constants.ts';
import { UserFacingError } from './error-messages.ts';
import type { RequestLog } from './request-log.ts';

/** A connection as the machine-scoped setting stores it: no key here, the key is in SecretStorage. */
export interface ConnectionSettings {
  /** Unique name, shown as the tree root. */
  name: string;
  /** The vault's base URL. */
  url: string;
  /** The vault login the view acts for (its folders and rights). */
  login: string;
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
}

/**
 * The configured vault connections. URLs and logins live in a machine-scoped setting (a workspace
 * cannot point a stored key at another server); API keys live in SecretStorage only.
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
      secrets.onDidChange((event) => {
        if (event.key.startsWith(SECRET_KEY_PREFIX)) this.reset();
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
      const { name, url, login } = entry as Record<string, unknown>;
      if (typeof name !== 'string' || typeof url !== 'string' || typeof login !== 'string') continue;
      if (name === '' || seen.has(name)) continue;
      seen.add(name);
      out.push({ name, url, login });
    }
    return out;
  }

  /**
   * Returns a ready connection: client and access checker over the stored key.
   *
   * @throws {UserFacingError} when the connection or its key is missing.
   */
  async get(name: string): Promise<Connection> {
    const existing = this.live.get(name);
    if (existing) return existing;
    const settings = this.list().find((entry) => entry.name === name);
    if (!settings)
      throw new UserFacingError(vscode.l10n.t('no connection named "{0}". Run "Vaultline: Connect".', name), {
        needsConnect: true,
      });
    const apiKey = await this.secrets.get(SECRET_KEY_PREFIX + name);
    if (!apiKey)
      throw new UserFacingError(vscode.l10n.t('no API key stored. Run "Vaultline: Connect" again.'), {
        needsConnect: true,
      });
    const timeoutMs = vscode.workspace
      .getConfiguration(CONFIG_SECTION)
      .get<number>(CONFIG.requestTimeoutMs, DEFAULTS.requestTimeoutMs);
    const client = createVaultClient({
      baseUrl: settings.url,
      apiKey,
      timeoutMs,
      onRequest: (event) => this.log.request(name, event),
    });
    this.disposables.push(this.log.addRedactor(client.redact));
    const connection: Connection = {
      ...settings,
      client,
      access: createAccessChecker(client),
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

  /** Adds or replaces a connection: the key to SecretStorage, the rest to the machine setting. */
  async save(settings: ConnectionSettings, apiKey: string): Promise<void> {
    // Validates the URL and key shape before anything is stored.
    const probe = createVaultClient({ baseUrl: settings.url, apiKey });
    this.disposables.push(this.log.addRedactor(probe.redact));
    await this.secrets.store(SECRET_KEY_PREFIX + settings.name, apiKey);
    const others = this.list().filter((entry) => entry.name !== settings.name);
    await this.writeList([...others, settings]);
    this.reset();
  }

  /** Removes a connection and its key. */
  async remove(name: string): Promise<void> {
    await this.writeList(this.list().filter((entry) => entry.name !== name));
    await this.secrets.delete(SECRET_KEY_PREFIX + name);
    this.reset();
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
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
