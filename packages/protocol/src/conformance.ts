/**
 * The conformance suite: exercises every operation of the endpoint table against a live server,
 * in a folder of its own that it creates and removes, and reports each operation pass or fail.
 * The main flow uses text of the BMP only, so that it runs on any server; what servers differ on
 * (characters outside the BMP, file endpoints, full-text search, the key in a header) is checked
 * on its own and reported as a finding of one line each.
 *
 * @module
 */

import type { ServerCapabilities } from './capabilities.ts';
import type { CallOptions, VaultClient } from './client/types.ts';
import { createVaultClient } from './create-client.ts';
import { ENDPOINT_NAMES, type EndpointName, endpoints } from './endpoints.ts';
import { isVaultError, serverWordsOf, toVaultError } from './errors.ts';
import { searchItems } from './search.ts';

/** Options of {@link runConformance}. */
export interface ConformanceOptions {
  /** The server's base URL. */
  baseUrl: string;
  /** An API key that may create folders and items and read the given login's data. */
  apiKey: string;
  /** A vault login whose read/userpw and read/userfolders are read. */
  login: string;
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
export const CONFORMANCE_CHECKS = ['four-byte-text', 'files', 'full-text-search', 'key-header'] as const;

/** One optional behaviour. */
export type ConformanceCheck = (typeof CONFORMANCE_CHECKS)[number];

/**
 * What a server does with an optional behaviour: `supported` (as the spec gives it), `mangles`
 * (accepts and changes the data), `refuses` (answers an error), `absent` (the operation does not
 * exist there), `failed` (something else went wrong: the check could not tell).
 */
export type FindingOutcome = 'supported' | 'mangles' | 'refuses' | 'absent' | 'failed';

/** The outcome of one optional check: one line for people. */
export interface ConformanceFinding {
  /** The behaviour checked. */
  check: ConformanceCheck;
  /** What the server does. */
  outcome: FindingOutcome;
  /** One line: what was sent and what came back (redacted). */
  detail: string;
  /** Whether this is a known limit of TeamPass (`shared/notes/teampass-behaviour.md`), not a defect of this server. */
  knownTeamPassLimit: boolean;
}

/** The outcome of a run. */
export interface ConformanceReport {
  /** Whether every operation that ran passed, none was left out unexpectedly, and no check `failed`. */
  ok: boolean;
  /** One result per operation, in table order. */
  results: ConformanceResult[];
  /** One finding per optional check that ran, in {@link CONFORMANCE_CHECKS} order. */
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
  const client: VaultClient = createVaultClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    fetch: options.fetch,
    retries: 0,
  });
  const files = options.files ?? true;
  const results = new Map<EndpointName, ConformanceResult>();
  const findings: ConformanceFinding[] = [];
  const capabilities = await client.capabilities().catch(() => undefined);
  const token = randomToken();
  const callOptions: CallOptions = {};
  const state: { folderId?: number; itemIds: number[]; fileId?: number } = { itemIds: [] };

  async function step(
    endpoint: EndpointName,
    needs: EndpointName[],
    run: () => Promise<string>,
  ): Promise<void> {
    const operation = endpoints[endpoint].operation;
    const missing = needs.filter((name) => results.get(name)?.ok !== true);
    let result: ConformanceResult;
    if (missing.length > 0) {
      result = {
        endpoint,
        operation,
        ok: false,
        detail: `not run: needs ${missing.map((name) => endpoints[name].operation).join(', ')}`,
      };
    } else {
      try {
        result = { endpoint, operation, ok: true, detail: await run() };
      } catch (error) {
        const message =
          error instanceof CheckFailed || error instanceof Skipped
            ? error.message
            : `${toVaultError(error, client.redact).code}: ${client.redact(error instanceof Error ? error.message : String(error))}`;
        result = { endpoint, operation, ok: error instanceof Skipped ? undefined : false, detail: message };
      }
    }
    results.set(endpoint, result);
    options.onResult?.(result);
  }

  function found(check: ConformanceCheck, outcome: FindingOutcome, detail: string): void {
    const finding: ConformanceFinding = {
      check,
      outcome,
      detail: client.redact(detail),
      knownTeamPassLimit: TEAMPASS_LIMITS[check].includes(outcome),
    };
    findings.push(finding);
    options.onFinding?.(finding);
  }

  /** The server's words about an error, or its code: for one line. */
  function said(error: unknown): string {
    const words = serverWordsOf(error, client.redact, 100);
    const vaultError = toVaultError(error, client.redact);
    return `${vaultError.code}${vaultError.status === undefined ? '' : ` (HTTP ${vaultError.status})`}${words ? `: "${words}"` : ''}`;
  }

  const mainItemsReady = () =>
    ['addItem', 'updateItem'].every((name) => results.get(name as EndpointName)?.ok === true);

  const folderTitle = `vaultline-conformance-${token}`;
  // The main flow stays in the BMP: TeamPass's default 3-byte tables refuse anything else, which
  // is its own check below.
  const label = `conf ${token} Ünïcødé ✓ ;/+=% end`;
  const secondLabel = `conf ${token} second`;
  const password = `pw;/+=%\n\u0000✓${token}`;
  const emojiLabel = `conf ${token} emoji 😀 🔑`;
  const payload = new Uint8Array([0, 1, 2, 255, ...new TextEncoder().encode(`conformance ✓ ${token}\n`)]);

  try {
    await step('addFolder', [], async () => {
      const created = await client.addFolder(
        { folder: { title: folderTitle, complexityLevel: 0, parentId: 0, renewalPeriod: 0 } },
        callOptions,
      );
      check(
        Number.isSafeInteger(created.id) && created.id > 0,
        `expected a positive new_folder_id, received ${created.id}`,
      );
      state.folderId = created.id;
      return `created folder ${created.id}`;
    });

    await step('updateFolder', ['addFolder'], async () => {
      const updated = await client.updateFolder({
        id: state.folderId!,
        folder: { title: `${folderTitle}-renamed`, complexityLevel: 0, renewalPeriod: 0 },
      });
      return `status ${JSON.stringify(updated.status)}`;
    });

    await step('addItem', ['addFolder'], async () => {
      const first = await client.addItem({
        item: {
          label,
          password,
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
        item: { label: secondLabel, password: 'second', folderId: state.folderId! },
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
    });

    await step('readItems', ['addItem'], async () => {
      const items = await client.readItems({ ids: state.itemIds });
      const first = items.find((item) => item.id === state.itemIds[0]);
      check(first !== undefined, 'the first item is missing');
      check(
        items.some((item) => item.id === state.itemIds[1]),
        'the second item is missing',
      );
      check(first.label === label, `label did not round-trip: ${JSON.stringify(first.label)}`);
      check(first.password === password, 'password did not round-trip');
      check(first.login === `user.${token}@example.com`, 'login did not round-trip');
      check(first.url === `https://example.com/${token}?a=1&b=2`, 'url did not round-trip');
      check(first.folderId === state.folderId, `folder_id is ${first.folderId}, expected ${state.folderId}`);
      return `${items.length} items; every value round-tripped`;
    });

    await step('updateItem', ['readItems'], async () => {
      const id = state.itemIds[1]!;
      await client.updateItem({
        id,
        item: {
          label: `${secondLabel} updated`,
          password: 'changed ✓',
          folderId: state.folderId!,
          login: 'new-login',
        },
      });
      const [item] = await client.readItems({ ids: [id] });
      check(item?.label === `${secondLabel} updated`, 'the new label was not stored');
      check(item.password === 'changed ✓', 'the new password was not stored');
      check(item.login === 'new-login', 'the new login was not stored');
      return 'all nine values replaced';
    });

    await step('readFolders', ['addItem'], async () => {
      const items = (await client.readFolders({ ids: [state.folderId!] })).filter(
        (item) => item.folderId === state.folderId,
      );
      check(
        state.itemIds.every((id) => items.some((item) => item.id === id)),
        'the folder does not list both items',
      );
      return `${items.length} items in the folder`;
    });

    await step('findItems', ['addItem'], async () => {
      const found = await client.findItems({ folderIds: [state.folderId!], query: token });
      check(
        found.some((item) => item.id === state.itemIds[0]),
        `searching ${token} did not find the first item`,
      );
      const none = await client.findItems({ folderIds: [state.folderId!], query: `zz${token}zz` });
      check(none.length === 0, 'a search for an absent string found items');
      return `found ${found.length}; an absent string found none`;
    });

    await step('readUserItems', [], async () => {
      const items = await client.readUserItems({ login: options.login });
      return `${items.length} items for ${options.login}`;
    });

    await step('readUserFolders', [], async () => {
      const folders = await client.readUserFolders({ login: options.login });
      check(
        folders.every((folder) => folder.accessType !== 'none'),
        'a folder has an unknown access_type',
      );
      return `${folders.length} folders for ${options.login}`;
    });

    if (mainItemsReady()) {
      // Characters outside the BMP: stored as sent, mangled (TeamPass with latin1 or a `????` copy), or refused (3-byte tables).
      try {
        const { id } = await client.addItem({
          item: { label: emojiLabel, password: 'pw 😀', folderId: state.folderId!, description: '🎉' },
        });
        state.itemIds.push(id);
        const [item] = await client.readItems({ ids: [id] });
        if (item?.label === emojiLabel)
          found('four-byte-text', 'supported', 'an emoji in a label is stored as sent');
        else
          found(
            'four-byte-text',
            'mangles',
            `an emoji label came back as ${JSON.stringify(item?.label ?? null)}`,
          );
      } catch (error) {
        found('four-byte-text', 'refuses', `add/item with an emoji in the label answered ${said(error)}`);
      }

      // Search text with a space: the whole text where the server takes it; the core's search either way.
      const text = `${token} second`;
      try {
        const hits = await client.findItems({ folderIds: [state.folderId!], query: text });
        if (hits.some((hit) => hit.id === state.itemIds[1])) {
          found('full-text-search', 'supported', `find/item took ${JSON.stringify(text)} whole`);
        } else {
          found(
            'full-text-search',
            'mangles',
            `find/item with ${JSON.stringify(text)} did not find the item`,
          );
        }
      } catch (error) {
        const core = await searchItems(client, { folderIds: [state.folderId!], text }).catch(() => undefined);
        const rescue = core?.items.some((item) => item.id === state.itemIds[1])
          ? `; the core's searchItems found it (sent ${JSON.stringify(core.serverQuery)}, filtered locally)`
          : '';
        found('full-text-search', 'refuses', `find/item with a space answered ${said(error)}${rescue}`);
      }

      // The key in Authorization: Bearer instead of the URL.
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
            'key-header',
            'supported',
            'read/items with the key in Authorization: Bearer answered the item',
          );
        } else {
          found('key-header', 'failed', 'read/items with the key in Authorization: Bearer answered no item');
        }
      } catch (error) {
        found(
          'key-header',
          isVaultError(error, 'unauthorized') ? 'refuses' : 'failed',
          `read/items with the key in Authorization: Bearer answered ${said(error)}`,
        );
      }
    }

    if (files) {
      await step('addFile', ['addItem'], async () => {
        try {
          const added = await client.addFile({
            itemId: state.itemIds[0]!,
            file: payload,
            fileName: `conformance ü ${token}.txt`,
            contentType: 'text/plain',
          });
          if (added.id !== undefined) state.fileId = added.id;
          return `status ${JSON.stringify(added.status)}`;
        } catch (error) {
          if (isVaultError(error, 'not_found') && /^no results$/i.test(error.serverMessage ?? '')) {
            found('files', 'absent', 'add/file answers "No results": the server has no file endpoints');
            throw new Skipped('skipped: the server has no file endpoints');
          }
          found('files', 'failed', `add/file answered ${said(error)}`);
          throw error;
        }
      });
      if (results.get('addFile')?.ok === undefined) {
        for (const endpoint of ['listFiles', 'downloadFile'] as const) {
          const result: ConformanceResult = {
            endpoint,
            operation: endpoints[endpoint].operation,
            ok: undefined,
            detail: 'skipped: the server has no file endpoints',
          };
          results.set(endpoint, result);
          options.onResult?.(result);
        }
      } else {
        await step('listFiles', ['addFile'], async () => {
          const listed = await client.listFiles({ itemId: state.itemIds[0]! });
          const file = listed.find((entry) => entry.name.includes(token));
          check(file !== undefined, 'the uploaded file is not listed');
          check(file.size === payload.byteLength, `size is ${file.size}, expected ${payload.byteLength}`);
          state.fileId = file.id;
          return `${listed.length} file(s); name and size match`;
        });

        await step('downloadFile', ['listFiles'], async () => {
          const file = await client.downloadFile({ id: state.fileId! });
          check(
            file.bytes.byteLength === payload.byteLength &&
              file.bytes.every((byte, i) => byte === payload[i]),
            'the bytes differ',
          );
          return `${file.bytes.byteLength} bytes identical (${file.contentType})`;
        });
      }
      if (results.get('downloadFile')?.ok === true) {
        found('files', 'supported', 'add/file, read/listfiles and read/files round-trip a file');
      }
    }

    await step('deleteItems', ['addItem'], async () => {
      await client.deleteItems({ ids: state.itemIds });
      const left = await client.readItems({ ids: state.itemIds });
      check(left.length === 0, 'deleted items can still be read');
      state.itemIds = [];
      return 'deleted; reads no longer return them';
    });

    await step('deleteFolders', ['addFolder'], async () => {
      await client.deleteFolders({ ids: [state.folderId!] });
      const left = await client.readFolders({ ids: [state.folderId!] });
      check(
        left.every((item) => item.folderId !== state.folderId),
        'the deleted folder still lists items',
      );
      delete state.folderId;
      return 'deleted';
    });
  } finally {
    // Leave nothing behind, whatever failed.
    if (state.itemIds.length > 0) await client.deleteItems({ ids: state.itemIds }).catch(() => {});
    if (state.folderId !== undefined) await client.deleteFolders({ ids: [state.folderId] }).catch(() => {});
  }

  const ordered = ENDPOINT_NAMES.map(
    (endpoint): ConformanceResult =>
      results.get(endpoint) ?? {
        endpoint,
        operation: endpoints[endpoint].operation,
        ok: undefined,
        detail: 'not run (file operations disabled)',
      },
  );
  findings.sort((a, b) => CONFORMANCE_CHECKS.indexOf(a.check) - CONFORMANCE_CHECKS.indexOf(b.check));
  return {
    ok: ordered.every((result) => result.ok !== false) && findings.every((f) => f.outcome !== 'failed'),
    results: ordered,
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
    (finding) => !finding.knownTeamPassLimit && finding.outcome !== 'supported',
  );
  lines.push(
    `${passed} passed, ${failed} failed, ${skipped} skipped` +
      (limits.length > 0
        ? `; known TeamPass limits: ${limits.map((f) => `${f.check} ${f.outcome}`).join(', ')}`
        : '') +
      (other.length > 0 ? `; other findings: ${other.map((f) => `${f.check} ${f.outcome}`).join(', ')}` : ''),
  );
  return lines;
}
