/**
 * Vaultline for VS Code's agent: one MCP server definition per connection, each running the
 * `vaultline mcp` CLI over stdio (see docs/mcp.md). Off until the person turns it on in their user
 * settings: both settings are application-scoped, so a workspace can neither turn it on nor change
 * the command that receives the credentials.
 *
 * The list VS Code may keep holds no secret: a definition names the connection, its URL and login.
 * The credentials are added from SecretStorage only when VS Code starts the server
 * (`resolveMcpServerDefinition`), into the environment of that process, never into a setting or
 * a file.
 *
 * @module
 */

import type { CredentialFields } from '@vaultline/protocol';
import * as vscode from 'vscode';
import type { ConnectionSettings, ConnectionStore } from '../connections.ts';
import { CONFIG, CONFIG_SECTION } from '../constants.ts';

/** The provider's id, as package.json declares it under `mcpServerDefinitionProviders`. */
export const MCP_PROVIDER_ID = 'vaultline.mcpServers';

/** The environment the CLI reads a connection from (`vaultline --help`). */
const ENV = {
  url: 'VAULTLINE_URL',
  login: 'VAULTLINE_LOGIN',
  apiKey: 'VAULTLINE_API_KEY',
  password: 'VAULTLINE_PASSWORD',
  personalAccessToken: 'VAULTLINE_PERSONAL_ACCESS_TOKEN',
} as const;

/** What the server definitions are made of: for the API and the tests. */
export interface AssistantServers {
  /** Whether the person turned it on (user settings only). */
  enabled(): boolean;
  /** The definitions VS Code is offered now (no secret in them). */
  definitions(): vscode.McpStdioServerDefinition[];
  /** A definition with the credentials of its connection, as VS Code starts it. */
  resolve(definition: vscode.McpStdioServerDefinition): Promise<vscode.McpStdioServerDefinition | undefined>;
  /** The labels of the definitions VS Code itself asked for last (it lists them). */
  readonly listedByVsCode: readonly string[] | undefined;
}

/** A definition's label: the connection's name, which the person sees in VS Code's MCP list. */
export function serverLabel(connection: string): string {
  return `Vaultline: ${connection}`;
}

/**
 * Registers the provider with VS Code.
 *
 * @param connections The configured connections and their credentials.
 * @param own Keeps what must be disposed.
 * @returns What the provider offers, for the API.
 */
export function registerAssistantServers(
  connections: ConnectionStore,
  own: (disposable: vscode.Disposable) => void,
): AssistantServers {
  const changed = new vscode.EventEmitter<void>();
  own(changed);
  own(connections.onDidChange(() => changed.fire()));
  own(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (
        event.affectsConfiguration(`${CONFIG_SECTION}.${CONFIG.assistantEnabled}`) ||
        event.affectsConfiguration(`${CONFIG_SECTION}.${CONFIG.assistantCommand}`) ||
        event.affectsConfiguration(`${CONFIG_SECTION}.${CONFIG.connections}`)
      )
        changed.fire();
    }),
  );
  const config = () => vscode.workspace.getConfiguration(CONFIG_SECTION);
  const byLabel = new Map<string, ConnectionSettings>();
  let listedByVsCode: string[] | undefined;

  const servers: AssistantServers = {
    enabled: () => config().get<boolean>(CONFIG.assistantEnabled, false) === true,
    definitions() {
      byLabel.clear();
      if (!servers.enabled()) return [];
      const [command, ...leading] = commandOf(config().get<unknown>(CONFIG.assistantCommand));
      const cwd = vscode.workspace.workspaceFolders?.[0]?.uri;
      return connections.list().map((connection) => {
        const label = serverLabel(connection.name);
        byLabel.set(label, connection);
        const definition = new vscode.McpStdioServerDefinition(label, command, [...leading, 'mcp'], {
          [ENV.url]: connection.url,
          [ENV.login]: connection.login,
        });
        if (cwd?.scheme === 'file') definition.cwd = cwd;
        return definition;
      });
    },
    async resolve(definition) {
      const connection = byLabel.get(definition.label);
      if (!connection || !servers.enabled()) return undefined;
      const credentials = await connections.credentials(connection.name);
      if (!credentials.apiKey && !credentials.personalAccessToken) {
        void vscode.window.showErrorMessage(
          vscode.l10n.t(
            'Vaultline: no credentials stored for "{0}". Run "Vaultline: Connect to a Vault" first.',
            connection.name,
          ),
        );
        return undefined;
      }
      definition.env = { ...definition.env, ...credentialEnv(credentials) };
      return definition;
    },
    get listedByVsCode() {
      return listedByVsCode;
    },
  };

  own(
    vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: () => {
        const definitions = servers.definitions();
        listedByVsCode = definitions.map((definition) => definition.label);
        return definitions;
      },
      resolveMcpServerDefinition: (definition) =>
        definition instanceof vscode.McpStdioServerDefinition ? servers.resolve(definition) : undefined,
    }),
  );
  return servers;
}

/** The command setting: an array (command and leading arguments) or one word; `vaultline` by default. */
function commandOf(value: unknown): [string, ...string[]] {
  if (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((part) => typeof part === 'string' && part !== '')
  )
    return value as [string, ...string[]];
  if (typeof value === 'string' && value.trim() !== '') return [value.trim()];
  return ['vaultline'];
}

/** The environment of a server process: only what this connection signs in with. */
function credentialEnv(credentials: CredentialFields): Record<string, string> {
  const env: Record<string, string> = {};
  if (credentials.personalAccessToken) env[ENV.personalAccessToken] = credentials.personalAccessToken;
  if (credentials.apiKey) env[ENV.apiKey] = credentials.apiKey;
  if (credentials.password) env[ENV.password] = credentials.password;
  return env;
}
