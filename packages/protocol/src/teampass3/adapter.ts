/**
 * The app-facing `WireClient` over TeamPass 3: every method of the one client interface mapped
 * onto the TeamPass 3 table through a session (one sign-in per token lifetime, 401 and 429
 * handled there), so that apps never ask which server answers. Its own table of operations, no
 * branch inside the legacy client.
 *
 * Which rows carry each method: the README's table (`@see`), which `test/docs.test.ts` holds to
 * a row per operation of the endpoint table.
 *
 * The operations live by concern in `client/` (`items.ts`, `folders.ts`, `search.ts`, with the
 * records' mapping in `records.ts`); this file wires them into the one client.
 *
 * @see ./README.md#the-adapter
 * @module
 */

import type { ServerCapabilities } from '../capabilities.ts';
import type { CallOptions, ClientSettings, WireClient, WireMethods } from '../client/types.ts';
import { VaultError } from '../errors.ts';
import type { EndpointInput, EndpointName, EndpointOutput } from '../legacy/endpoints.ts';
import { generatePassword } from '../password-generator.ts';
import type { CredentialFields } from '../vault/credentials.ts';
import type { VaultIdentity } from '../vault/types.ts';
import { teampass3Capabilities } from './capabilities.ts';
import { signalOf, type TeamPass3ClientState, type TeamPass3Operation } from './client/context.ts';
import {
  addFolder,
  deleteFolders,
  itemPages,
  readFolders,
  readUserFolders,
  readUserItems,
  updateFolder,
} from './client/folders.ts';
import {
  addItem,
  deleteItems,
  getItem,
  readItems,
  readOtp,
  updateItem,
  updateItemFields,
} from './client/items.ts';
import { findByUrl, findItems, readTags } from './client/search.ts';
import { decodeTeamPassEntities } from './html.ts';
import { createTeamPass3Session, type TeamPass3Credentials, type TeamPass3Session } from './session.ts';

export {
  COMPLEXITY_TO_TEAMPASS3,
  complexityFromTeamPass3,
  TEAMPASS3_COMPLEXITY_LEVELS,
  type TeamPass3ComplexityLevel,
} from './client/records.ts';

/** What the client knows of the server before it calls (from a detection). */
export interface TeamPass3ClientContext {
  /** Whether a detection said TeamPass 3 (`false`: chosen from the credentials after an inconclusive one). */
  detected?: boolean | undefined;
}

/**
 * The TeamPass 3 credentials in client options, or what is missing.
 *
 * @param options The client options.
 * @returns The credentials, or a sentence naming what is missing.
 */
export function teampass3CredentialsOf(
  options: CredentialFields,
): { credentials: TeamPass3Credentials } | { missing: string } {
  const login = options.login?.trim() ?? '';
  if (login === '') return { missing: 'a login' };
  if (options.personalAccessToken)
    return { credentials: { login, personalAccessToken: options.personalAccessToken } };
  if (!options.password && !options.apiKey)
    return { missing: 'a password and the API key, or a personal access token' };
  if (!options.password) return { missing: 'a password (the API key alone cannot sign in)' };
  if (!options.apiKey) return { missing: "the user's personal API key (with the password)" };
  return { credentials: { login, password: options.password, apiKey: options.apiKey } };
}

/** The legacy operations' table over TeamPass 3: each entry one operation of `client/`. */
function methodsOf(state: TeamPass3ClientState): WireMethods {
  const noFiles = (operation: string) => async (): Promise<never> => {
    throw new VaultError(
      'unsupported',
      `${operation}: TeamPass 3 has no attachments (capabilities: files false); nothing was sent.`,
      { endpoint: operation },
    );
  };
  const bound =
    <K extends EndpointName>(operation: TeamPass3Operation<K>) =>
    (input: EndpointInput<K>, callOptions?: CallOptions) =>
      operation(state, input, callOptions);
  return {
    addItem: bound(addItem),
    updateItem: bound(updateItem),
    deleteItems: bound(deleteItems),
    addFolder: bound(addFolder),
    updateFolder: bound(updateFolder),
    deleteFolders: bound(deleteFolders),
    addFile: noFiles('addFile'),
    readFolders: bound(readFolders),
    readItems: bound(readItems),
    readUserItems: bound(readUserItems),
    readUserFolders: bound(readUserFolders),
    listFiles: noFiles('listFiles'),
    downloadFile: noFiles('downloadFile'),
    findItems: bound(findItems),
    // TeamPass 3's API generates no passwords: the same generator answers here, sending nothing.
    generatePassword: async ({ rules }) => ({ password: generatePassword(rules) }),
    readOtp: bound(readOtp),
  };
}

/**
 * Creates the `WireClient` of a TeamPass 3 server. Nothing is sent until the first call.
 *
 * @param settings The client's settings: `credentials` (`login` with `password` and `apiKey`, or
 *   with `personalAccessToken`), the `teampass3` settings.
 * @param context What a detection learnt.
 * @returns The client.
 * @throws {VaultError} `invalid_request` when the credentials cannot sign in.
 */
export function createTeamPass3Client(
  settings: ClientSettings,
  context: TeamPass3ClientContext = {},
): WireClient {
  const found = teampass3CredentialsOf(settings.credentials);
  if ('missing' in found) {
    throw new VaultError(
      'invalid_request',
      `TeamPass 3 signs in with a login, password and the user's API key, or a login and a personal access token: missing ${found.missing}.`,
    );
  }
  const { credentials } = found;
  const session: TeamPass3Session = createTeamPass3Session({ ...settings, credentials });
  const state: TeamPass3ClientState = { session, credentials, keepOtp: settings.teampass3.keepOtpSecrets };
  const capabilities: ServerCapabilities = teampass3Capabilities({
    maxResults: settings.teampass3.maxItems,
    detected: context.detected ?? true,
  });
  const methods = methodsOf(state);

  async function call<K extends EndpointName>(
    name: K,
    input: EndpointInput<K>,
    callOptions?: CallOptions,
  ): Promise<EndpointOutput<K>> {
    const method = methods[name] as (
      input: EndpointInput<K>,
      options?: CallOptions,
    ) => Promise<EndpointOutput<K>>;
    if (typeof method !== 'function')
      throw new VaultError('invalid_request', `Unknown operation ${JSON.stringify(String(name))}.`);
    return method(input, callOptions);
  }

  return {
    ...methods,
    baseUrl: session.baseUrl,
    redact: session.redact,
    capabilities: async () => capabilities,
    call,
    getItem: (id, callOptions) => getItem(state, id, callOptions),
    updateItemFields: (id, changes, callOptions) => updateItemFields(state, id, changes, callOptions),
    readTags: (callOptions) => readTags(state, callOptions),
    itemPages: (ids, callOptions) => itemPages(state, ids, callOptions),
    findByUrl: ({ url }, callOptions) => findByUrl(state, url, callOptions),
    async identity(callOptions): Promise<VaultIdentity> {
      const user = await session.user(signalOf(callOptions));
      return {
        login: decodeTeamPassEntities(user.login) || credentials.login,
        userId: user.userId,
        administrator: user.admin,
        api: user.api,
      };
    },
    dispose: (disposeOptions) => session.dispose(disposeOptions),
  };
}
