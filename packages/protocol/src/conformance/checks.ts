/**
 * The optional checks of the conformance suite: one function per behaviour servers differ on, each
 * reporting one finding.
 *
 * @module
 */

import { isVaultError } from '../errors.ts';
import { searchItems } from '../search.ts';
import { createWireClient } from '../vault/wire-client.ts';
import { found, type Run, said } from './run.ts';

/** Characters outside the BMP: stored as sent, mangled (TeamPass with latin1 or a `????` copy), or refused (3-byte tables). */
export async function fourByteText(run: Run): Promise<void> {
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
export async function fullTextSearch(run: Run): Promise<void> {
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
export async function keyHeader(run: Run): Promise<void> {
  const { options, state } = run;
  const headerClient = createWireClient({
    baseUrl: options.baseUrl,
    auth: options.apiKey ?? '',
    fetch: options.fetch,
    retry: { retries: 0 },
    legacy: { keyTransport: 'header' },
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
export async function otherUsers(run: Run): Promise<void> {
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
export async function multiIdReads(run: Run): Promise<void> {
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
export async function urlLookup(run: Run): Promise<void> {
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
export async function tagsScope(run: Run): Promise<void> {
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

/** The three file operations round-tripped a file (add/file reports `absent` and `failed` itself). */
export async function files(run: Run): Promise<void> {
  found(run, 'files', 'supported', 'add/file, read/listfiles and read/files round-trip a file');
}
