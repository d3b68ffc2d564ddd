/**
 * The app-facing `VaultClient` over TeamPass 3: every method of the one client interface mapped
 * onto the TeamPass 3 table through a session (one sign-in per token lifetime, 401 and 429
 * handled there), so that apps never ask which server answers. Its own table of operations, no
 * branch inside the legacy client.
 *
 * | method | TeamPass 3 |
 * | --- | --- |
 * | `readItems` | one `item/get` per id, a few at a time; an id TeamPass answers `[]` for is left out |
 * | `readFolders` | `item/inFolders`, every page; folders the user cannot see give nothing |
 * | `readUserFolders` | `folder/writableFolders`, the signed-in user only; rights folded with the API permissions |
 * | `readUserItems` | the signed-in user's readable folders, then their items |
 * | `findItems` | `item/get?label=…&like=1`, every page, kept to the given folders and to labels holding the text |
 * | `addItem`, `updateItem`, `updateItemFields`, `deleteItems` | `item/create`, `item/update` (all values; only the changed ones), `item/delete` per id |
 * | `addFolder`, `updateFolder`, `deleteFolders` | `folder/create`, `folder/update` (complexity levels mapped), `folder/delete` per id |
 * | `getItem` | `item/get`; `[]` is one `not_found` saying "not found or not permitted" |
 * | `readOtp`, `readTags`, `findByUrl` | `item/getOtp`, `item/allTags`, `item/findByUrl` |
 * | `addFile`, `listFiles`, `downloadFile` | `unsupported`: TeamPass 3 has no attachments |
 * | `generatePassword` | the core's generator, here: TeamPass 3's API has none, and nothing is sent |
 * | `identity`, `dispose` | the token's claims; `auth/logout` |
 *
 * @see ./README.md
 * @module
 */

import { type ServerCapabilities, teampass3Capabilities } from '../capabilities.ts';
import type {
  CallOptions,
  OtpCode,
  UrlMatch,
  VaultClient,
  VaultClientOptions,
  VaultIdentity,
  VaultMethods,
} from '../client/types.ts';
import { REDACTED, VaultError } from '../errors.ts';
import { encodeId, encodeIdList, type ItemWrite } from '../legacy/codec.ts';
import type { EndpointInput, EndpointName, EndpointOutput } from '../legacy/endpoints.ts';
import { customFieldsOf, type Folder, type FoundItem, type Item } from '../legacy/schemas.ts';
import type { ComplexityLevel } from '../legacy/segments.ts';
import { generatePassword } from '../password-generator.ts';
import { foldApiPermissions } from '../rights.ts';
import { foldLabel } from '../text.ts';
import { decodeTeamPassEntities } from './html.ts';
import type { TeamPass3Item } from './schemas.ts';
import { createTeamPass3Session, type TeamPass3Credentials, type TeamPass3Session } from './session.ts';

/** TeamPass 3's folder complexity levels (minimum password strength: very weak, weak, medium, strong, very strong). */
export const TEAMPASS3_COMPLEXITY_LEVELS = [0, 20, 38, 48, 60] as const;

/** A TeamPass 3 complexity level. */
export type TeamPass3ComplexityLevel = (typeof TEAMPASS3_COMPLEXITY_LEVELS)[number];

/**
 * The legacy complexity levels as TeamPass 3 names the same strengths: 0 very weak, 25 weak → 20,
 * 50 medium → 38, 60 strong → 48, and 70 very strong, 80 heavy, 90 very heavy → 60 (TeamPass 3's
 * strongest).
 */
export const COMPLEXITY_TO_TEAMPASS3: Readonly<Record<ComplexityLevel, TeamPass3ComplexityLevel>> = {
  0: 0,
  25: 20,
  50: 38,
  60: 48,
  70: 60,
  80: 60,
  90: 60,
};

/**
 * A TeamPass 3 folder's complexity as the legacy level of the same strength (the weakest legacy
 * level TeamPass 3's maps to: 60, its strongest, is 70 "very strong"), or `undefined` for a value
 * that is not one of its levels.
 */
export function complexityFromTeamPass3(complexity: number): ComplexityLevel | undefined {
  const levels = Object.entries(COMPLEXITY_TO_TEAMPASS3) as unknown as [string, number][];
  const found = levels.find(([, mapped]) => mapped === complexity);
  return found ? (Number(found[0]) as ComplexityLevel) : undefined;
}

/** How many folder ids go into one `item/inFolders` read. */
const FOLDERS_PER_READ = 200;

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
  options: Pick<VaultClientOptions, 'login' | 'password' | 'apiKey' | 'personalAccessToken'>,
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

/**
 * Creates the `VaultClient` of a TeamPass 3 server. Nothing is sent until the first call.
 *
 * @param options The client options: `login` with `password` and `apiKey`, or with
 *   `personalAccessToken`; `tokenCache` and `session` settings.
 * @param context What a detection learnt.
 * @returns The client.
 * @throws {VaultError} `invalid_request` when the credentials cannot sign in.
 */
export function createTeamPass3Client(
  options: VaultClientOptions,
  context: TeamPass3ClientContext = {},
): VaultClient {
  const found = teampass3CredentialsOf(options);
  if ('missing' in found) {
    throw new VaultError(
      'invalid_request',
      `TeamPass 3 signs in with a login, password and the user's API key, or a login and a personal access token: missing ${found.missing}.`,
    );
  }
  const { credentials } = found;
  const keepOtp = options.keepOtpSecrets === true;
  const settings = options.session ?? {};
  const session: TeamPass3Session = createTeamPass3Session({
    baseUrl: options.baseUrl,
    apiPath: options.apiPath,
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
    retries: options.retries,
    retryDelayMs: options.retryDelayMs,
    maxResponseBytes: options.maxResponseBytes,
    headers: options.headers,
    onRequest: options.onRequest,
    credentials,
    tokenCache: options.tokenCache,
    refreshMarginMs: settings.refreshMarginMs,
    maxRetryAfterMs: settings.maxRetryAfterMs,
    rateLimitRetries: settings.rateLimitRetries,
    maxItems: settings.maxItems,
    pageSize: settings.pageSize,
    pageConcurrency: settings.concurrency,
    now: settings.now,
    sleep: settings.sleep,
  });
  const capabilities: ServerCapabilities = teampass3Capabilities({
    maxResults: settings.maxItems ?? 100_000,
    detected: context.detected ?? true,
  });
  const signal = (callOptions: CallOptions | undefined) => ({ signal: callOptions?.signal });

  /** The signed-in user, when `login` names them; `unsupported` for anyone else. */
  async function requireSelf(login: string, operation: string, callOptions: CallOptions | undefined) {
    const user = await session.user(signal(callOptions));
    const self = decodeTeamPassEntities(user.login || credentials.login);
    if (self.trim().toLowerCase() !== login.trim().toLowerCase()) {
      throw new VaultError(
        'unsupported',
        `${operation}: TeamPass 3 lets the signed-in user (${JSON.stringify(self)}) read only their own data, not that of ${JSON.stringify(login)}.`,
        { endpoint: operation },
      );
    }
    return user;
  }

  async function readFolders(ids: readonly number[], callOptions: CallOptions | undefined): Promise<Item[]> {
    encodeIdList(ids);
    const unique = [...new Set(ids)];
    const wanted = new Set(unique);
    const items: Item[] = [];
    for (let start = 0; start < unique.length; start += FOLDERS_PER_READ) {
      const folders = unique.slice(start, start + FOLDERS_PER_READ);
      try {
        const page = await session.readAll('itemsInFolders', { folders }, signal(callOptions));
        for (const record of page.items) if (wanted.has(record.folderId)) items.push(toItem(record, keepOtp));
      } catch (error) {
        // TeamPass drops the folders the user cannot see, and answers 400 when none is left.
        if (!isNoFolderLeft(error)) throw error;
      }
    }
    return items;
  }

  async function readUserFolders(login: string, callOptions: CallOptions | undefined): Promise<Folder[]> {
    const user = await requireSelf(login, 'readUserFolders', callOptions);
    const records = await session.call('writableFolders', {}, signal(callOptions));
    return records.map((record) => {
      const accessType = foldApiPermissions(record.accessType, user.api);
      const parentId = record.parentId;
      return {
        id: record.id,
        title: record.title,
        level: record.level,
        accessType,
        parentId,
        personal: record.personal,
        complexityLevel: complexityFromTeamPass3(record.complexity),
        raw: {
          ...record.raw,
          id: record.id,
          title: record.title,
          level: record.level,
          access_type: accessType,
          parent_id: parentId,
          personal: record.personal ? '1' : '0',
          complexity_level: String(complexityFromTeamPass3(record.complexity) ?? ''),
        },
      };
    });
  }

  async function readItems(ids: readonly number[], callOptions: CallOptions | undefined): Promise<Item[]> {
    encodeIdList(ids);
    const unique = [...new Set(ids)];
    const answers = await session.callEach(
      'getItem',
      unique.map((id) => ({ id })),
      signal(callOptions),
    );
    const items: Item[] = [];
    answers.forEach((records, index) => {
      const record = records.find((candidate) => candidate.id === unique[index]);
      if (record) items.push(toItem(record, keepOtp));
    });
    return items.sort((a, b) => a.id - b.id);
  }

  async function getItem(id: number, callOptions: CallOptions | undefined): Promise<Item> {
    encodeId(id);
    const records = await session.call('getItem', { id }, signal(callOptions));
    const record = records.find((candidate) => candidate.id === id);
    if (!record) {
      throw new VaultError(
        'not_found',
        `item/get: item ${id} was not found, or the signed-in user may not read it (TeamPass 3 answers both the same way).`,
        { endpoint: 'getItem', status: 200 },
      );
    }
    return toItem(record, keepOtp);
  }

  async function findItems(
    folderIds: readonly number[],
    query: string,
    callOptions: CallOptions | undefined,
  ): Promise<FoundItem[]> {
    encodeIdList(folderIds);
    const folders = new Set(folderIds);
    const page = await session.readAll('searchItems', { label: query, like: true }, signal(callOptions));
    const wanted = foldLabel(query);
    // TeamPass's LIKE reads % and _ as wildcards: the text is matched here as written.
    return page.items
      .filter((record) => folders.has(record.folderId) && foldLabel(record.label).includes(wanted))
      .map((record) => ({ ...toItem(record), status: 'OK' }));
  }

  async function updateItem(id: number, item: ItemWrite, callOptions: CallOptions | undefined) {
    encodeId(id);
    const changed = await session.call(
      'updateItem',
      {
        id,
        label: item.label,
        password: item.password,
        description: item.description ?? '',
        login: item.login ?? '',
        email: item.email ?? '',
        url: item.url ?? '',
        tags: tagsOf(item.tags) ?? '',
        anyone_can_modify: item.anyoneCanModify ?? false,
        folder_id: item.folderId,
      },
      signal(callOptions),
    );
    return { status: changed.message || 'item updated' };
  }

  async function updateItemFields(
    id: number,
    changes: Partial<ItemWrite>,
    callOptions: CallOptions | undefined,
  ) {
    encodeId(id);
    // TeamPass 3 updates only the fields it is sent: nothing to read and merge first.
    const input = {
      id,
      ...(changes.label === undefined ? {} : { label: changes.label }),
      ...(changes.password === undefined ? {} : { password: changes.password }),
      ...(changes.description === undefined ? {} : { description: changes.description }),
      ...(changes.login === undefined ? {} : { login: changes.login }),
      ...(changes.email === undefined ? {} : { email: changes.email }),
      ...(changes.url === undefined ? {} : { url: changes.url }),
      ...(changes.tags === undefined ? {} : { tags: tagsOf(changes.tags) ?? '' }),
      ...(changes.anyoneCanModify === undefined ? {} : { anyone_can_modify: changes.anyoneCanModify }),
      ...(changes.folderId === undefined ? {} : { folder_id: changes.folderId }),
    };
    if (Object.keys(input).length === 1) {
      await getItem(id, callOptions);
      return { status: 'unchanged' };
    }
    const changed = await session.call('updateItem', input, signal(callOptions));
    return { status: changed.message || 'item updated' };
  }

  async function deleteFolders(ids: readonly number[], callOptions: CallOptions | undefined) {
    encodeIdList(ids);
    // A folder delete takes its subfolders with it: one at a time, skipping those already gone.
    const gone = new Set<number>();
    for (const id of new Set(ids)) {
      if (gone.has(id)) continue;
      const deleted = await session.call('deleteFolder', { id }, signal(callOptions));
      gone.add(id);
      for (const folderId of deleted.folderIds) gone.add(folderId);
    }
    return { status: 'OK' as const };
  }

  const noFiles = (operation: string) => async (): Promise<never> => {
    throw new VaultError(
      'unsupported',
      `${operation}: TeamPass 3 has no attachments (capabilities: files false); nothing was sent.`,
      { endpoint: operation },
    );
  };

  const methods: VaultMethods = {
    addItem: async ({ item }, callOptions) => {
      const created = await session.call(
        'createItem',
        {
          label: item.label,
          folder_id: item.folderId,
          password: item.password,
          login: item.login ?? '',
          email: item.email ?? '',
          url: item.url ?? '',
          tags: tagsOf(item.tags) ?? '',
          anyone_can_modify: item.anyoneCanModify ?? false,
          ...(item.description === undefined ? {} : { description: item.description }),
        },
        signal(callOptions),
      );
      return { status: created.message || 'item added', id: created.id };
    },
    updateItem: ({ id, item }, callOptions) => updateItem(id, item, callOptions),
    deleteItems: async ({ ids }, callOptions) => {
      encodeIdList(ids);
      await session.callEach(
        'deleteItem',
        [...new Set(ids)].map((id) => ({ id })),
        signal(callOptions),
      );
      return { status: 'OK' as const };
    },
    addFolder: async ({ folder }, callOptions) => {
      if (folder.personal) {
        throw new VaultError(
          'unsupported',
          'folder/create: TeamPass 3 creates personal folders in its own interface, not through the API; nothing was sent.',
          { endpoint: 'addFolder' },
        );
      }
      const created = await session.call(
        'createFolder',
        {
          title: folder.title,
          parent_id: folder.parentId ?? 0,
          complexity: complexityOf(folder.complexityLevel ?? 0),
          duration: folder.renewalPeriod ?? 0,
        },
        signal(callOptions),
      );
      return { status: 'folder created', id: created.id };
    },
    updateFolder: async ({ id, folder }, callOptions) => {
      encodeId(id);
      const updated = await session.call(
        'updateFolder',
        {
          id,
          title: folder.title,
          complexity: complexityOf(folder.complexityLevel),
          duration: folder.renewalPeriod,
        },
        signal(callOptions),
      );
      return { status: updated.message || 'folder updated' };
    },
    deleteFolders: ({ ids }, callOptions) => deleteFolders(ids, callOptions),
    addFile: noFiles('addFile'),
    readFolders: ({ ids }, callOptions) => readFolders(ids, callOptions),
    readItems: ({ ids }, callOptions) => readItems(ids, callOptions),
    readUserItems: async ({ login }, callOptions) => {
      const folders = await readUserFolders(login, callOptions);
      const readable = folders.filter((folder) => folder.accessType !== 'none').map((folder) => folder.id);
      return readable.length === 0 ? [] : readFolders(readable, callOptions);
    },
    readUserFolders: ({ login }, callOptions) => readUserFolders(login, callOptions),
    listFiles: noFiles('listFiles'),
    downloadFile: noFiles('downloadFile'),
    findItems: ({ folderIds, query }, callOptions) => findItems(folderIds, query, callOptions),
    // TeamPass 3's API generates no passwords: the same generator answers here, sending nothing.
    generatePassword: async ({ rules }) => ({ password: generatePassword(rules) }),
    async readOtp({ id }, callOptions): Promise<OtpCode> {
      const otp = await session.call('getOtp', { id }, signal(callOptions));
      return {
        itemId: otp.itemId,
        code: otp.code,
        secondsLeft: otp.expiresIn,
        period: otp.period,
        digits: otp.digits,
      };
    },
  };

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
    getItem: (id, callOptions) => getItem(id, callOptions),
    updateItemFields: (id, changes, callOptions) => updateItemFields(id, changes, callOptions),
    async readTags(callOptions): Promise<string[]> {
      return session.call('allTags', {}, signal(callOptions));
    },
    async findByUrl({ url }, callOptions): Promise<UrlMatch[]> {
      const matches = await session.call('findByUrl', { url }, signal(callOptions));
      return matches.map((match) => ({
        id: match.id,
        label: match.label,
        login: match.login,
        url: match.url,
        folderId: match.folderId,
        otp: match.otp,
      }));
    },
    async identity(callOptions): Promise<VaultIdentity> {
      const user = await session.user(signal(callOptions));
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

/**
 * A TeamPass 3 item as the apps' `Item`: the TOTP secret TeamPass sends in clear is not kept,
 * unless the client was made for a migration (`keepOtpSecrets`).
 */
function toItem(record: TeamPass3Item, keepOtpSecret = false): Item {
  const fields = customFieldsOf(record.raw.fields);
  return {
    ...(fields ? { fields } : {}),
    ...(keepOtpSecret && record.raw.totp !== ''
      ? {
          otpSecret: {
            secret: record.raw.totp,
            algorithm: record.raw.totp_algorithm || 'sha1',
            digits: record.raw.totp_digits || 6,
            period: record.raw.totp_period || 30,
          },
        }
      : {}),
    id: record.id,
    label: record.label,
    description: record.description,
    login: record.login,
    email: record.email,
    url: record.url,
    password: record.password,
    folderId: record.folderId,
    path: record.path,
    tags: record.tags,
    otp: record.otp,
    raw: { ...record.raw, totp: record.raw.totp === '' ? '' : REDACTED },
  };
}

function tagsOf(tags: ItemWrite['tags']): string | undefined {
  if (tags === undefined) return undefined;
  return typeof tags === 'string' ? tags : tags.join(' ');
}

function complexityOf(level: number): TeamPass3ComplexityLevel {
  const mapped = COMPLEXITY_TO_TEAMPASS3[level as ComplexityLevel];
  if (mapped === undefined) {
    throw new VaultError(
      'invalid_request',
      `Expected a complexity level of ${Object.keys(COMPLEXITY_TO_TEAMPASS3).join(', ')}, received ${JSON.stringify(level)}.`,
    );
  }
  return mapped;
}

function isNoFolderLeft(error: unknown): boolean {
  return (
    error instanceof VaultError &&
    error.status === 400 &&
    /Folders are mandatory/i.test(error.serverMessage ?? '')
  );
}
