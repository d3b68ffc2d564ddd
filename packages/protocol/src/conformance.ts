/**
 * The conformance suite: exercises every operation of the endpoint table against a live server,
 * in a folder of its own that it creates and removes, and reports each operation pass or fail.
 * It runs through the one `VaultClient`, so a TeamPass 3 server is checked by the same main flow
 * as a legacy one. The main flow uses text of the BMP only, so that it runs on any server; what
 * servers differ on (characters outside the BMP, file endpoints, full-text search, the key in a
 * header, reading another user's data, multi-id reads, URL lookup, the scope of tags) is checked
 * on its own and reported as a finding of one line each.
 *
 * @module
 */

import type { ServerCapabilities } from './capabilities.ts';
import type { DialectOption, RequestEvent, VaultClient } from './client/types.ts';
import { createVaultClient } from './create-client.ts';
import { isVaultError, serverWordsOf, toVaultError } from './errors.ts';
import { ENDPOINT_NAMES, type EndpointName, endpoints } from './legacy/endpoints.ts';
import { searchItems } from './search.ts';

/** Options of {@link runConformance}. */
export interface ConformanceOptions {
  /** The server's base URL. */
  baseUrl: string;
  /**
   * An API key that may create folders and items and read the given login's data; on TeamPass 3,
   * the login's personal API key (with `password`), unless `personalAccessToken` is given.
   */
  apiKey?: string | undefined;
  /** A vault login whose read/userpw and read/userfolders are read; on TeamPass 3, the user who signs in. */
  login: string;
  /** The login's password, on servers with per-user sign-in (TeamPass 3). */
  password?: string | undefined;
  /** A personal access token instead of the password and API key (TeamPass 3, where enabled). */
  personalAccessToken?: string | undefined;
  /** The dialect, when known; detected otherwise. */
  dialect?: DialectOption | undefined;
  /**
   * Whether to test the three file operations. Default true: a server without them (TeamPass)
   * is then reported as a finding (`files: absent`) and the three are skipped, not failed.
   */
  files?: boolean | undefined;
  /** Receives a line per finished optional check. */
  onFinding?: ((finding: ConformanceFinding) => void) | undefined;
  /** The `fetch` to use. */
  fetch?: typeof globalThis.fetch | undefined;
  /** Receives a line per finished operation. */
  onResult?: ((result: ConformanceResult) => void) | undefined;
}

/** The outcome of one operation. */
export interface ConformanceResult {
  /** The operation's name in the table. */
  endpoint: EndpointName;
  /** The spec's name, e.g. `read/items`. */
  operation: string;
  /** Whether every check of it passed; `undefined` when it was not run. */
  ok: boolean | undefined;
  /** What was checked, or what failed. */
  detail: string;
}

/** The optional behaviours checked on their own. */
export const CONFORMANCE_CHECKS = [
  'four-byte-text',
  'files',
  'full-text-search',
  'key-header',
  'other-users',
  'multi-id-reads',
  'url-lookup',
  'tags-scope',
] as const;

/** One optional behaviour. */
export type ConformanceCheck = (typeof CONFORMANCE_CHECKS)[number];

/**
 * What a server does with an optional behaviour: `supported` (as the spec gives it), `mangles`
 * (accepts and changes the data), `refuses` (answers an error), `absent` (the operation does not
 * exist there), `leaks` (it answers more than the caller may see), `failed` (something else went
 * wrong: the check could not tell), `not-run` (the check was not made: its detail says why).
 */
export type FindingOutcome = 'supported' | 'mangles' | 'refuses' | 'absent' | 'leaks' | 'failed' | 'not-run';

/** The outcome of one optional check: one line for people. */
export interface ConformanceFinding {
  /** The behaviour checked. */
  check: ConformanceCheck;
  /** What the server does. */
  outcome: FindingOutcome;
  /** One line: what was sent and what came back (redacted). */
  detail: string;
  /** Whether this is a known limit of TeamPass (`docs/teampass.md`), not a defect of this server. */
  knownTeamPassLimit: boolean;
}

/** The outcome of a run. */
export interface ConformanceReport {
  /** Whether every operation that ran passed, none was left out unexpectedly, and no check `failed`. */
  ok: boolean;
  /** One result per operation, in table order. */
  results: ConformanceResult[];
  /** One finding per optional check (`not-run` for one that was not made), in {@link CONFORMANCE_CHECKS} order. */
  findings: ConformanceFinding[];
  /** What the client learnt of the server. */
  capabilities: ServerCapabilities | undefined;
}

/** What TeamPass does for each check: such an outcome is a known limit, not a defect. */
const TEAMPASS_LIMITS: Readonly<Record<ConformanceCheck, readonly FindingOutcome[]>> = {
  'four-byte-text': ['refuses', 'mangles'],
  files: ['absent'],
  'full-text-search': ['refuses'],
  'key-header': ['refuses'],
  'other-users': ['absent'],
  'multi-id-reads': ['absent'],
  'url-lookup': [],
  'tags-scope': ['leaks'],
};

class CheckFailed extends Error {
  override name = 'CheckFailed';
}

/** Thrown by a step that does not apply to this server: reported as skipped, not failed. */
class Skipped extends Error {
  override name = 'Skipped';
}

function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new CheckFailed(message);
}

function randomToken(): string {
  return Math.random().toString(36).slice(2, 10);
}

/** What the steps of one run share. */
interface Run {
  readonly client: VaultClient;
  readonly options: ConformanceOptions;
  /** What the client learnt of the server before the first step. */
  readonly capabilities: ServerCapabilities | undefined;
  /** Every request the client made, redacted: checks count them. */
  readonly events: RequestEvent[];
  /** Whether the file operations are tested. */
  readonly files: boolean;
  /** Unique to the run, in everything it creates. */
  readonly token: string;
  // What the main flow writes and expects back, each holding the token.
  readonly folderTitle: string;
  readonly label: string;
  readonly secondLabel: string;
  readonly password: string;
  readonly emojiLabel: string;
  readonly payload: Uint8Array;
  /**
   * What earlier steps created: later steps use it, the clean-up removes it; `refused` says that
   * the server refused the sign-in (or the key), which stops the run.
   */
  readonly state: { folderId?: number; itemIds: number[]; fileId?: number; refused?: string };
  /** The result of each operation that ran. */
  readonly results: Map<EndpointName, ConformanceResult>;
  /** The findings, in the order they were made. */
  readonly findings: ConformanceFinding[];
}

/** One operation of the table, checked; run when the operations it needs passed. */
interface OperationStep {
  /** The operation. */
  readonly endpoint: EndpointName;
  /** What must have passed first; when one of them was skipped, this one is skipped too. */
  readonly needs: readonly EndpointName[];
  /** Whether the run includes it; always when absent. */
  readonly when?: (run: Run) => boolean;
  /** Checks the operation; returns what was checked, throws what failed. */
  readonly run: (run: Run) => Promise<string>;
}

/** One optional behaviour, checked on its own: it reports findings, never a result. */
interface CheckStep {
  /** The behaviour. */
  readonly check: ConformanceCheck;
  /** Why the run cannot make the check (reported as `not-run`); `undefined` when it can. */
  readonly unless: (run: Run) => string | undefined;
  /** Checks the behaviour and reports what the server does with {@link found}. */
  readonly run: (run: Run) => Promise<void>;
}

type Step = OperationStep | CheckStep;

function passed(run: Run, endpoint: EndpointName): boolean {
  return run.results.get(endpoint)?.ok === true;
}

function record(run: Run, result: ConformanceResult): void {
  run.results.set(result.endpoint, result);
  run.options.onResult?.(result);
}

function found(run: Run, check: ConformanceCheck, outcome: FindingOutcome, detail: string): void {
  const finding: ConformanceFinding = {
    check,
    outcome,
    detail: run.client.redact(detail),
    knownTeamPassLimit: TEAMPASS_LIMITS[check].includes(outcome),
  };
  run.findings.push(finding);
  run.options.onFinding?.(finding);
}

/** The server's words about an error, or its code: for one line. */
function said(run: Run, error: unknown): string {
  const words = serverWordsOf(error, run.client.redact, 100);
  const vaultError = toVaultError(error, run.client.redact);
  return `${vaultError.code}${vaultError.status === undefined ? '' : ` (HTTP ${vaultError.status})`}${words ? `: "${words}"` : ''}`;
}

/** Runs one operation step and reports its result: not run, skipped, passed or failed. */
async function runOperation(run: Run, step: OperationStep): Promise<void> {
  const { endpoint } = step;
  const operation = endpoints[endpoint].operation;
  // A step whose prerequisite was skipped (no file endpoints) is skipped for the same reason.
  const skipped = step.needs
    .map((name) => run.results.get(name))
    .find((result) => result && result.ok === undefined);
  if (skipped) return record(run, { endpoint, operation, ok: undefined, detail: skipped.detail });
  const missing = step.needs.filter((name) => !passed(run, name));
  if (missing.length > 0) {
    return record(run, {
      endpoint,
      operation,
      ok: false,
      detail: `not run: needs ${missing.map((name) => endpoints[name].operation).join(', ')}`,
    });
  }
  try {
    record(run, { endpoint, operation, ok: true, detail: await step.run(run) });
  } catch (error) {
    const { redact } = run.client;
    const message =
      error instanceof CheckFailed || error instanceof Skipped
        ? error.message
        : `${toVaultError(error, redact).code}: ${redact(error instanceof Error ? error.message : String(error))}`;
    record(run, { endpoint, operation, ok: error instanceof Skipped ? undefined : false, detail: message });
    // Each sign-in TeamPass refuses counts toward locking the address out: one try is enough.
    if (isVaultError(error, 'unauthorized'))
      run.state.refused = `the server refused the sign-in or the key at ${operation}`;
  }
}

/** Why a check cannot run while the given operations have not passed; `undefined` once they have. */
function needs(run: Run, ...names: EndpointName[]): string | undefined {
  const missing = names.filter((name) => !passed(run, name));
  return missing.length === 0
    ? undefined
    : `needs ${missing.map((name) => endpoints[name].operation).join(', ')}, which did not pass`;
}

async function addFolder(run: Run): Promise<string> {
  const created = await run.client.addFolder({
    folder: { title: run.folderTitle, complexityLevel: 0, parentId: 0, renewalPeriod: 0 },
  });
  check(
    Number.isSafeInteger(created.id) && created.id > 0,
    `expected a positive new_folder_id, received ${created.id}`,
  );
  run.state.folderId = created.id;
  return `created folder ${created.id}`;
}

async function updateFolder(run: Run): Promise<string> {
  const updated = await run.client.updateFolder({
    id: run.state.folderId!,
    folder: { title: `${run.folderTitle}-renamed`, complexityLevel: 0, renewalPeriod: 0 },
  });
  return `status ${JSON.stringify(updated.status)}`;
}

async function addItem(run: Run): Promise<string> {
  const { client, state, token, label } = run;
  const first = await client.addItem({
    item: {
      label,
      password: run.password,
      description: 'line one\nline two & more',
      folderId: state.folderId!,
      login: `user.${token}@example.com`,
      email: `user.${token}@example.com`,
      url: `https://example.com/${token}?a=1&b=2`,
      tags: ['conformance', token],
    },
  });
  state.itemIds.push(first.id);
  const second = await client.addItem({
    item: { label: run.secondLabel, password: 'second', folderId: state.folderId! },
  });
  state.itemIds.push(second.id);
  check(first.id !== second.id, 'two adds returned the same new_item_id');
  try {
    await client.addItem({
      item: { label: label.toUpperCase(), password: 'x', folderId: state.folderId! },
    });
    throw new CheckFailed('adding a label that differs only in case was accepted');
  } catch (error) {
    if (error instanceof CheckFailed) throw error;
    check(
      isVaultError(error, 'duplicate_label'),
      `a similar label gave ${toVaultError(error).code}, expected duplicate_label`,
    );
  }
  return `created items ${first.id} and ${second.id}; a similar label was refused`;
}

async function readItems(run: Run): Promise<string> {
  const { state, token } = run;
  const items = await run.client.readItems({ ids: state.itemIds });
  const first = items.find((item) => item.id === state.itemIds[0]);
  check(first !== undefined, 'the first item is missing');
  check(
    items.some((item) => item.id === state.itemIds[1]),
    'the second item is missing',
  );
  check(first.label === run.label, `label did not round-trip: ${JSON.stringify(first.label)}`);
  check(first.password === run.password, 'password did not round-trip');
  check(first.login === `user.${token}@example.com`, 'login did not round-trip');
  check(first.url === `https://example.com/${token}?a=1&b=2`, 'url did not round-trip');
  check(first.folderId === state.folderId, `folder_id is ${first.folderId}, expected ${state.folderId}`);
  return `${items.length} items; every value round-tripped`;
}

async function updateItem(run: Run): Promise<string> {
  const id = run.state.itemIds[1]!;
  await run.client.updateItem({
    id,
    item: {
      label: `${run.secondLabel} updated`,
      password: 'changed ✓',
      folderId: run.state.folderId!,
      login: 'new-login',
    },
  });
  const [item] = await run.client.readItems({ ids: [id] });
  check(item?.label === `${run.secondLabel} updated`, 'the new label was not stored');
  check(item.password === 'changed ✓', 'the new password was not stored');
  check(item.login === 'new-login', 'the new login was not stored');
  return 'all nine values replaced';
}

async function readFolders(run: Run): Promise<string> {
  const { state } = run;
  const items = (await run.client.readFolders({ ids: [state.folderId!] })).filter(
    (item) => item.folderId === state.folderId,
  );
  check(
    state.itemIds.every((id) => items.some((item) => item.id === id)),
    'the folder does not list both items',
  );
  return `${items.length} items in the folder`;
}

async function findItems(run: Run): Promise<string> {
  const { client, state, token } = run;
  const found = await client.findItems({ folderIds: [state.folderId!], query: token });
  check(
    found.some((item) => item.id === state.itemIds[0]),
    `searching ${token} did not find the first item`,
  );
  const none = await client.findItems({ folderIds: [state.folderId!], query: `zz${token}zz` });
  check(none.length === 0, 'a search for an absent string found items');
  return `found ${found.length}; an absent string found none`;
}

async function readUserItems(run: Run): Promise<string> {
  const { login } = run.options;
  const items = await run.client.readUserItems({ login });
  return `${items.length} items for ${login}`;
}

async function readUserFolders(run: Run): Promise<string> {
  const { login } = run.options;
  const folders = await run.client.readUserFolders({ login });
  check(
    folders.every((folder) => folder.accessType !== 'none'),
    'a folder has an unknown access_type',
  );
  return `${folders.length} folders for ${login}`;
}

async function generatePassword(run: Run): Promise<string> {
  const { client } = run;
  const first = await client.generatePassword({ rules: { length: 20 } });
  const second = await client.generatePassword({ rules: { length: 20 } });
  check(first.password.length === 20, `asked 20 characters, received ${first.password.length}`);
  check(first.password !== second.password, 'two passwords generated one after the other are the same');
  return 'two different passwords of the length asked';
}

/**
 * read/otp on the item the suite added, which has no TOTP secret (the legacy API cannot give it
 * one): the server answers that there is no code, and sends none.
 */
async function readOtp(run: Run): Promise<string> {
  try {
    const code = await run.client.readOtp({ id: run.state.itemIds[0]! });
    check(false, `answered a code for an item without a TOTP secret (${code.digits} digits)`);
  } catch (error) {
    if (isVaultError(error, 'not_found')) return 'no code for an item without a TOTP secret (not_found)';
    throw error;
  }
  return '';
}

/** Characters outside the BMP: stored as sent, mangled (TeamPass with latin1 or a `????` copy), or refused (3-byte tables). */
async function fourByteText(run: Run): Promise<void> {
  try {
    const { id } = await run.client.addItem({
      item: { label: run.emojiLabel, password: 'pw 😀', folderId: run.state.folderId!, description: '🎉' },
    });
    run.state.itemIds.push(id);
    const [item] = await run.client.readItems({ ids: [id] });
    if (item?.label === run.emojiLabel)
      found(run, 'four-byte-text', 'supported', 'an emoji in a label is stored as sent');
    else
      found(
        run,
        'four-byte-text',
        'mangles',
        `an emoji label came back as ${JSON.stringify(item?.label ?? null)}`,
      );
  } catch (error) {
    found(
      run,
      'four-byte-text',
      'refuses',
      `add/item with an emoji in the label answered ${said(run, error)}`,
    );
  }
}

/** Search text with a space: the whole text where the server takes it; the core's search either way. */
async function fullTextSearch(run: Run): Promise<void> {
  const { client, state } = run;
  const text = `${run.token} second`;
  try {
    const hits = await client.findItems({ folderIds: [state.folderId!], query: text });
    if (hits.some((hit) => hit.id === state.itemIds[1])) {
      found(run, 'full-text-search', 'supported', `find/item took ${JSON.stringify(text)} whole`);
    } else {
      found(
        run,
        'full-text-search',
        'mangles',
        `find/item with ${JSON.stringify(text)} did not find the item`,
      );
    }
  } catch (error) {
    const core = await searchItems(client, { folderIds: [state.folderId!], text }).catch(() => undefined);
    const how =
      core?.serverQuery === undefined
        ? 'read the searched folders and matched there'
        : `sent ${JSON.stringify(core.serverQuery)}, filtered locally`;
    const rescue = core?.items.some((item) => item.id === state.itemIds[1])
      ? `; the core's searchItems found it (${how})`
      : '';
    found(run, 'full-text-search', 'refuses', `find/item with a space answered ${said(run, error)}${rescue}`);
  }
}

/** The key in Authorization: Bearer instead of the URL. */
async function keyHeader(run: Run): Promise<void> {
  const { options, state } = run;
  const headerClient = createVaultClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    fetch: options.fetch,
    retries: 0,
    keyTransport: 'header',
  });
  try {
    const items = await headerClient.readItems({ ids: [state.itemIds[0]!] });
    if (items.some((item) => item.id === state.itemIds[0])) {
      found(
        run,
        'key-header',
        'supported',
        'read/items with the key in Authorization: Bearer answered the item',
      );
    } else {
      found(run, 'key-header', 'failed', 'read/items with the key in Authorization: Bearer answered no item');
    }
  } catch (error) {
    found(
      run,
      'key-header',
      isVaultError(error, 'unauthorized') ? 'refuses' : 'failed',
      `read/items with the key in Authorization: Bearer answered ${said(run, error)}`,
    );
  }
}

/** Another user's folders: the legacy API's keys may read them; TeamPass 3 runs every call as the signed-in user. */
async function otherUsers(run: Run): Promise<void> {
  const other = `${run.options.login}-conformance-${run.token}`;
  try {
    const folders = await run.client.readUserFolders({ login: other });
    found(
      run,
      'other-users',
      'supported',
      `read/userfolders answered ${folders.length} folders for another login`,
    );
  } catch (error) {
    if (isVaultError(error, 'not_found')) {
      found(
        run,
        'other-users',
        'supported',
        `read/userfolders answers for another login (${said(run, error)})`,
      );
    } else if (isVaultError(error, 'unsupported')) {
      found(
        run,
        'other-users',
        'absent',
        "every call runs as the signed-in user: another user's data cannot be read",
      );
    } else {
      found(
        run,
        'other-users',
        isVaultError(error, 'forbidden') ? 'refuses' : 'failed',
        `read/userfolders for another login answered ${said(run, error)}`,
      );
    }
  }
}

/** Several ids in one read: one request, or one per id. */
async function multiIdReads(run: Run): Promise<void> {
  const ids = run.state.itemIds.slice(0, 2);
  const before = run.events.length;
  try {
    const items = await run.client.readItems({ ids });
    const requests = run.events.length - before;
    if (items.length !== ids.length) {
      found(
        run,
        'multi-id-reads',
        'failed',
        `read/items of ${ids.length} ids answered ${items.length} items`,
      );
    } else if (requests > 1) {
      found(
        run,
        'multi-id-reads',
        'absent',
        `read/items of ${ids.length} ids took ${requests} requests: the server reads one id per call (the client sends them a few at a time)`,
      );
    } else {
      found(run, 'multi-id-reads', 'supported', `read/items of ${ids.length} ids took one request`);
    }
  } catch (error) {
    found(run, 'multi-id-reads', 'failed', `read/items of ${ids.length} ids answered ${said(run, error)}`);
  }
}

/** Items by the URL they hold, where the server has the lookup. */
async function urlLookup(run: Run): Promise<void> {
  const url = `https://example.com/${run.token}`;
  try {
    const matches = await run.client.findByUrl({ url });
    if (matches.some((match) => match.id === run.state.itemIds[0]))
      found(run, 'url-lookup', 'supported', `findByUrl found the item by ${JSON.stringify(url)}`);
    else found(run, 'url-lookup', 'failed', `findByUrl with ${JSON.stringify(url)} did not find the item`);
  } catch (error) {
    found(run, 'url-lookup', 'failed', `findByUrl answered ${said(run, error)}`);
  }
}

/** Whether the tag list holds tags of items the caller cannot read (here: of the deleted items). */
async function tagsScope(run: Run): Promise<void> {
  try {
    const tags = await run.client.readTags();
    if (tags.includes(run.token)) {
      found(
        run,
        'tags-scope',
        'leaks',
        'readTags still lists the tag of the deleted items: it lists tags of items the user cannot read',
      );
    } else found(run, 'tags-scope', 'supported', 'readTags lists no tag of the deleted items');
  } catch (error) {
    found(run, 'tags-scope', 'failed', `readTags answered ${said(run, error)}`);
  }
}

async function addFile(run: Run): Promise<string> {
  try {
    const added = await run.client.addFile({
      itemId: run.state.itemIds[0]!,
      file: run.payload,
      fileName: `conformance ü ${run.token}.txt`,
      contentType: 'text/plain',
    });
    if (added.id !== undefined) run.state.fileId = added.id;
    return `status ${JSON.stringify(added.status)}`;
  } catch (error) {
    if (isVaultError(error, 'not_found') && /^no results$/i.test(error.serverMessage ?? '')) {
      found(run, 'files', 'absent', 'add/file answers "No results": the server has no file endpoints');
      throw new Skipped('skipped: the server has no file endpoints');
    }
    if (isVaultError(error, 'unsupported')) {
      found(run, 'files', 'absent', 'the server has no attachments at all (capabilities: files false)');
      throw new Skipped('skipped: the server has no attachments');
    }
    found(run, 'files', 'failed', `add/file answered ${said(run, error)}`);
    throw error;
  }
}

async function listFiles(run: Run): Promise<string> {
  const { payload } = run;
  const listed = await run.client.listFiles({ itemId: run.state.itemIds[0]! });
  const file = listed.find((entry) => entry.name.includes(run.token));
  check(file !== undefined, 'the uploaded file is not listed');
  check(file.size === payload.byteLength, `size is ${file.size}, expected ${payload.byteLength}`);
  run.state.fileId = file.id;
  return `${listed.length} file(s); name and size match`;
}

async function downloadFile(run: Run): Promise<string> {
  const { payload } = run;
  const file = await run.client.downloadFile({ id: run.state.fileId! });
  check(
    file.bytes.byteLength === payload.byteLength && file.bytes.every((byte, i) => byte === payload[i]),
    'the bytes differ',
  );
  return `${file.bytes.byteLength} bytes identical (${file.contentType})`;
}

/** The three file operations round-tripped a file (add/file reports `absent` and `failed` itself). */
async function files(run: Run): Promise<void> {
  found(run, 'files', 'supported', 'add/file, read/listfiles and read/files round-trip a file');
}

async function deleteItems(run: Run): Promise<string> {
  const { client, state } = run;
  await client.deleteItems({ ids: state.itemIds });
  const left = await client.readItems({ ids: state.itemIds });
  check(left.length === 0, 'deleted items can still be read');
  state.itemIds = [];
  return 'deleted; reads no longer return them';
}

async function deleteFolders(run: Run): Promise<string> {
  const { client, state } = run;
  await client.deleteFolders({ ids: [state.folderId!] });
  const left = await client.readFolders({ ids: [state.folderId!] });
  check(
    left.every((item) => item.folderId !== state.folderId),
    'the deleted folder still lists items',
  );
  delete state.folderId;
  return 'deleted';
}

/** The optional checks need the main flow's items. */
const mainItems = (run: Run): string | undefined => needs(run, 'addItem', 'updateItem');
const withFiles = (run: Run): boolean => run.files;
/** Why a capability the check needs is missing; `undefined` when the server has it. */
const unlessCapable = (run: Run, has: boolean | undefined, missing: string): string | undefined =>
  run.capabilities === undefined ? 'the server could not be identified' : has ? undefined : missing;

/**
 * The suite, in the order it runs: the main flow (BMP text only, so that it runs on any server),
 * the optional checks, the file operations, then the deletes. Each operation of the table has
 * one step; the report lists their results in table order.
 */
const STEPS: readonly Step[] = [
  { endpoint: 'addFolder', needs: [], run: addFolder },
  { endpoint: 'updateFolder', needs: ['addFolder'], run: updateFolder },
  { endpoint: 'addItem', needs: ['addFolder'], run: addItem },
  { endpoint: 'readItems', needs: ['addItem'], run: readItems },
  { endpoint: 'updateItem', needs: ['readItems'], run: updateItem },
  { endpoint: 'readFolders', needs: ['addItem'], run: readFolders },
  { endpoint: 'findItems', needs: ['addItem'], run: findItems },
  { endpoint: 'readUserItems', needs: [], run: readUserItems },
  { endpoint: 'readUserFolders', needs: [], run: readUserFolders },
  { endpoint: 'generatePassword', needs: [], run: generatePassword },
  {
    endpoint: 'readOtp',
    needs: ['addItem'],
    when: (run) => run.capabilities?.otp === true,
    run: readOtp,
  },
  { check: 'four-byte-text', unless: mainItems, run: fourByteText },
  { check: 'full-text-search', unless: mainItems, run: fullTextSearch },
  {
    check: 'key-header',
    unless: (run) =>
      mainItems(run) ??
      (run.capabilities?.credentials === 'password'
        ? 'the server signs in with a password: an API key is never sent alone'
        : undefined),
    run: keyHeader,
  },
  { check: 'other-users', unless: () => undefined, run: otherUsers },
  { check: 'multi-id-reads', unless: mainItems, run: multiIdReads },
  {
    check: 'url-lookup',
    unless: (run) =>
      mainItems(run) ?? unlessCapable(run, run.capabilities?.urlLookup, 'the server has no URL lookup'),
    run: urlLookup,
  },
  { endpoint: 'addFile', needs: ['addItem'], when: withFiles, run: addFile },
  { endpoint: 'listFiles', needs: ['addFile'], when: withFiles, run: listFiles },
  { endpoint: 'downloadFile', needs: ['listFiles'], when: withFiles, run: downloadFile },
  {
    check: 'files',
    unless: (run) => (run.files ? needs(run, 'downloadFile') : 'file operations disabled'),
    run: files,
  },
  { endpoint: 'deleteItems', needs: ['addItem'], run: deleteItems },
  {
    check: 'tags-scope',
    unless: (run) =>
      needs(run, 'deleteItems') ?? unlessCapable(run, run.capabilities?.tags, 'the server has no tag list'),
    run: tagsScope,
  },
  { endpoint: 'deleteFolders', needs: ['addFolder'], run: deleteFolders },
];

/** Leaves nothing behind, whatever failed. */
async function cleanUp(run: Run): Promise<void> {
  const { client, state } = run;
  if (state.itemIds.length > 0) await client.deleteItems({ ids: state.itemIds }).catch(() => {});
  if (state.folderId !== undefined) await client.deleteFolders({ ids: [state.folderId] }).catch(() => {});
}

/**
 * Runs the conformance suite.
 *
 * @param options The server, key and login.
 * @returns The report; never throws for a failing server.
 * @example
 * ```ts
 * const report = await runConformance({ baseUrl, apiKey, login: 'admin' });
 * for (const r of report.results) console.log(r.ok ? 'PASS' : 'FAIL', r.operation, r.detail);
 * ```
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const events: RequestEvent[] = [];
  const client: VaultClient = createVaultClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    login: options.login,
    password: options.password,
    personalAccessToken: options.personalAccessToken,
    dialect: options.dialect,
    fetch: options.fetch,
    retries: 0,
    onRequest: (event) => events.push(event),
  });
  const capabilities = await client.capabilities().catch(() => undefined);
  const token = randomToken();
  const run: Run = {
    client,
    options,
    capabilities,
    events,
    files: options.files ?? true,
    token,
    folderTitle: `vaultline-conformance-${token}`,
    // The main flow stays in the BMP: TeamPass's default 3-byte tables refuse anything else, which
    // is its own check.
    label: `conf ${token} Ünïcødé ✓ ;/+=% end`,
    secondLabel: `conf ${token} second`,
    password: `pw;/+=%\n\u0000✓${token}`,
    emojiLabel: `conf ${token} emoji 😀 🔑`,
    payload: new Uint8Array([0, 1, 2, 255, ...new TextEncoder().encode(`conformance ✓ ${token}\n`)]),
    state: { itemIds: [] },
    results: new Map(),
    findings: [],
  };

  try {
    for (const step of STEPS) {
      const { refused } = run.state;
      if ('endpoint' in step) {
        if (step.when !== undefined && !step.when(run)) continue;
        if (refused === undefined) await runOperation(run, step);
        else {
          const operation = endpoints[step.endpoint].operation;
          record(run, { endpoint: step.endpoint, operation, ok: undefined, detail: `not run: ${refused}` });
        }
        continue;
      }
      const why = refused ?? step.unless(run);
      // A check another step already reported on (files: absent) keeps that line.
      if (why === undefined) await step.run(run);
      else if (!run.findings.some((finding) => finding.check === step.check))
        found(run, step.check, 'not-run', `not run: ${why}`);
    }
  } finally {
    await cleanUp(run);
    await client.dispose().catch(() => {});
  }

  const results = ENDPOINT_NAMES.map(
    (endpoint): ConformanceResult =>
      run.results.get(endpoint) ?? {
        endpoint,
        operation: endpoints[endpoint].operation,
        ok: undefined,
        detail:
          endpoint === 'readOtp'
            ? 'not run (the server has no one-time codes: capabilities otp false)'
            : 'not run (file operations disabled)',
      },
  );
  const findings = run.findings.sort(
    (a, b) => CONFORMANCE_CHECKS.indexOf(a.check) - CONFORMANCE_CHECKS.indexOf(b.check),
  );
  return {
    ok: results.every((result) => result.ok !== false) && findings.every((f) => f.outcome !== 'failed'),
    results,
    findings,
    capabilities,
  };
}

/**
 * The lines a person reads after the operations: one per finding (with whether it is a known
 * TeamPass limit), and a summary that counts the operations and names the known limits.
 *
 * @param report The report.
 * @returns One line per finding, then the summary line.
 */
export function formatFindings(report: Pick<ConformanceReport, 'findings' | 'results'>): string[] {
  const lines = report.findings.map(
    (finding) =>
      `${finding.outcome.toUpperCase().padEnd(9)} ${finding.check.padEnd(17)} ${finding.detail}${
        finding.knownTeamPassLimit ? ' (known TeamPass limit)' : ''
      }`,
  );
  const passed = report.results.filter((result) => result.ok === true).length;
  const failed = report.results.filter((result) => result.ok === false).length;
  const skipped = report.results.filter((result) => result.ok === undefined).length;
  const limits = report.findings.filter((finding) => finding.knownTeamPassLimit);
  const other = report.findings.filter(
    (finding) =>
      !finding.knownTeamPassLimit && finding.outcome !== 'supported' && finding.outcome !== 'not-run',
  );
  const notRun = report.findings.filter((finding) => finding.outcome === 'not-run');
  lines.push(
    `${passed} passed, ${failed} failed, ${skipped} skipped` +
      (limits.length > 0
        ? `; known TeamPass limits: ${limits.map((f) => `${f.check} ${f.outcome}`).join(', ')}`
        : '') +
      (other.length > 0
        ? `; other findings: ${other.map((f) => `${f.check} ${f.outcome}`).join(', ')}`
        : '') +
      (notRun.length > 0 ? `; checks not run: ${notRun.map((f) => f.check).join(', ')}` : ''),
  );
  return lines;
}
