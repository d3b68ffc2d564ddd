/**
 * The conformance suite: exercises every operation of the endpoint table against a live server,
 * in a folder of its own that it creates and removes, and reports each operation pass or fail.
 *
 * @module
 */

import { type CallOptions, createVaultClient, type VaultClient } from './create-client.ts';
import { ENDPOINT_NAMES, type EndpointName, endpoints } from './endpoints.ts';
import { isVaultError, toVaultError } from './errors.ts';

/** Options of {@link runConformance}. */
export interface ConformanceOptions {
  /** The server's base URL. */
  baseUrl: string;
  /** An API key that may create folders and items and read the given login's data. */
  apiKey: string;
  /** A vault login whose read/userpw and read/userfolders are read. */
  login: string;
  /** Whether to test the three file operations (TeamPass has none). Default true. */
  files?: boolean | undefined;
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

/** The outcome of a run. */
export interface ConformanceReport {
  /** Whether every operation that ran passed and none was left out unexpectedly. */
  ok: boolean;
  /** One result per operation, in table order. */
  results: ConformanceResult[];
}

class CheckFailed extends Error {
  override name = 'CheckFailed';
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
          error instanceof CheckFailed
            ? error.message
            : `${toVaultError(error, client.redact).code}: ${client.redact(error instanceof Error ? error.message : String(error))}`;
        result = { endpoint, operation, ok: false, detail: message };
      }
    }
    results.set(endpoint, result);
    options.onResult?.(result);
  }

  const folderTitle = `vaultline-conformance-${token}`;
  const label = `conf ${token} Ünïcødé 😀 ;/+=% end`;
  const secondLabel = `conf ${token} second`;
  const password = `pw;/+=%\n\u0000😀${token}`;
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

    if (files) {
      await step('addFile', ['addItem'], async () => {
        const added = await client.addFile({
          itemId: state.itemIds[0]!,
          file: payload,
          fileName: `conformance ü ${token}.txt`,
          contentType: 'text/plain',
        });
        if (added.id !== undefined) state.fileId = added.id;
        return `status ${JSON.stringify(added.status)}`;
      });

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
          file.bytes.byteLength === payload.byteLength && file.bytes.every((byte, i) => byte === payload[i]),
          'the bytes differ',
        );
        return `${file.bytes.byteLength} bytes identical (${file.contentType})`;
      });
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
  return { ok: ordered.every((result) => result.ok !== false), results: ordered };
}
