/**
 * One search that is right on every server: the whole text where the server accepts it, the
 * longest run it accepts otherwise (TeamPass: `[A-Za-z0-9_:'-]` only), then a local,
 * case-insensitive filter on the whole text, with the server's result cap reported.
 *
 * @module
 */

import type { ServerCapabilities } from './capabilities.ts';
import type { CallOptions, VaultClient } from './client/types.ts';
import { VaultError } from './errors.ts';
import type { Item } from './schemas.ts';
import { foldLabel, MAX_SEARCH_LENGTH } from './text.ts';

/** What to search. */
export interface SearchQuery {
  /** The folders to search (not their sub-folders, as TeamPass); none finds nothing. */
  folderIds: readonly number[];
  /** The text the labels must contain, compared with {@link foldLabel}; 1–{@link MAX_SEARCH_LENGTH} characters. */
  text: string;
}

/** Options of {@link searchItems}. */
export interface SearchOptions extends CallOptions {
  /** The server's capabilities; read from the client when absent. */
  capabilities?: ServerCapabilities | undefined;
  /**
   * The shortest run of accepted characters worth sending when the whole text cannot be sent:
   * shorter runs match too much to narrow anything. Default 3.
   */
  minRunLength?: number | undefined;
  /**
   * What to do when no part of the text can be sent (only emoji, CJK, accents…): `folders` reads
   * the folders' items (read/folder) and filters them here; `none` finds nothing. Default
   * `folders`.
   */
  fallback?: 'folders' | 'none' | undefined;
}

/** How the server was asked. */
export type SearchStrategy = 'full' | 'run' | 'folders' | 'none';

/** What {@link searchItems} found. */
export interface SearchResult {
  /** The items whose label contains the whole text (folded), in the searched folders, in id order. */
  items: Item[];
  /** What the server was sent: the whole text, its longest accepted run, or nothing. */
  serverQuery: string | undefined;
  /**
   * `full`: the whole text went to find/item. `run`: a part of it did, and the rest was filtered
   * here. `folders`: no part could be sent; the folders were read and filtered here. `none`:
   * nothing was asked.
   */
  strategy: SearchStrategy;
  /** The server's result cap, when known. */
  maxResults: number | undefined;
  /**
   * Whether the server may have left results out: it answered as many as its cap (per call).
   * On a TeamPass-compatible server the cap is unknown and this is `false`.
   */
  truncated: boolean;
}

/** Characters TeamPass's find/item accepts in its search segment. */
const RESTRICTED_RUNS = /[A-Za-z0-9_:'-]+/g;
/** Characters no server can take in a path segment (the codec refuses them). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what splits the text.
const UNSENDABLE = /[/\\?#\u0000-\u001f\u007f]+/;

/**
 * The parts of a text a server accepts in find/item, longest first.
 *
 * @param text The search text.
 * @param search The server's search capability.
 * @returns The runs of accepted characters (trimmed, without `0`, which TeamPass answers with a 500).
 */
export function searchableRuns(text: string, search: ServerCapabilities['search']): string[] {
  const normalized = text.normalize('NFC');
  const runs =
    search === 'restricted'
      ? (normalized.match(RESTRICTED_RUNS) ?? [])
      : normalized.split(UNSENDABLE).map((run) => run.trim());
  // `.` and `..` are dot segments: URL parsers drop them (and their `%2E` spellings) from a path.
  return runs
    .filter((run) => run !== '' && run !== '0' && run !== '.' && run !== '..')
    .sort((a, b) => b.length - a.length);
}

/**
 * What to send to find/item for a text: the whole (trimmed) text when the server accepts all of
 * it, its longest accepted run when that is long enough, `undefined` when no part is worth it.
 *
 * @param text The search text.
 * @param search The server's search capability.
 * @param minRunLength The shortest run worth sending. Default 3.
 * @returns The server query and whether it is the whole text.
 */
export function planSearch(
  text: string,
  search: ServerCapabilities['search'],
  minRunLength = 3,
): { query: string | undefined; whole: boolean } {
  const trimmed = text.normalize('NFC').trim();
  const [longest] = searchableRuns(trimmed, search);
  if (longest === undefined) return { query: undefined, whole: false };
  if (longest === trimmed) return { query: longest, whole: true };
  return longest.length >= minRunLength
    ? { query: longest, whole: false }
    : { query: undefined, whole: false };
}

/**
 * Searches items by label on any server of the API.
 *
 * @param client The vault client.
 * @param query The folders and the text.
 * @param options The server's capabilities (read from the client when absent) and the strategy.
 * @returns The matching items and how they were found.
 * @throws {VaultError} `invalid_request` for an empty text or one above {@link MAX_SEARCH_LENGTH}
 *   characters; the client's errors otherwise.
 * @example
 * ```ts
 * const { items, truncated } = await searchItems(vault, { folderIds: [1, 2], text: 'postgres prod' });
 * ```
 */
export async function searchItems(
  client: Pick<VaultClient, 'findItems' | 'readFolders' | 'capabilities'>,
  query: SearchQuery,
  options: SearchOptions = {},
): Promise<SearchResult> {
  const wanted = foldLabel(query.text);
  if (wanted === '')
    throw new VaultError('invalid_request', 'Expected a search text, received an empty one.');
  const length = [...query.text.trim()].length;
  if (length > MAX_SEARCH_LENGTH) {
    throw new VaultError(
      'invalid_request',
      `Expected a search text of at most ${MAX_SEARCH_LENGTH} characters, received ${length}.`,
    );
  }
  const folderIds = [...new Set(query.folderIds)];
  const capabilities = options.capabilities ?? (await client.capabilities());
  const callOptions: CallOptions = options.signal ? { signal: options.signal } : {};
  const result = (strategy: SearchStrategy, found: readonly Item[], serverQuery?: string): SearchResult => {
    const folders = new Set(folderIds);
    const cap = capabilities.maxResults;
    return {
      items: found
        .filter((item) => folders.has(item.folderId) && foldLabel(item.label).includes(wanted))
        .sort((a, b) => a.id - b.id),
      serverQuery,
      strategy,
      maxResults: cap,
      truncated: strategy !== 'folders' && cap !== undefined && found.length >= cap,
    };
  };
  if (folderIds.length === 0) return result('none', []);
  const plan = planSearch(query.text, capabilities.search, options.minRunLength);
  if (plan.query !== undefined) {
    const found = await client.findItems({ folderIds, query: plan.query }, callOptions);
    return result(plan.whole ? 'full' : 'run', found, plan.query);
  }
  if ((options.fallback ?? 'folders') === 'none') return result('none', []);
  return result('folders', await client.readFolders({ ids: folderIds }, callOptions));
}
