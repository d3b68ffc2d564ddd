/**
 * One search that is right on every server: the items of the searched folders where every word of
 * the text is found in the label, login, URL or folder path (folded with `foldLabel`), ranked.
 *
 * A server that matches words in every field (`search: 'words'`: the Vaultline server) is sent the
 * text once. One whose find/item matches the label only (TeamPass, which also accepts only
 * `[A-Za-z0-9_:'-]` runs, and Vaultline servers before word search) cannot answer that: the core
 * reads the searched folders (read/folder) and matches here, or, when asked to, sends find/item the
 * longest part of a word it accepts and keeps the items whose label holds every word.
 *
 * @module
 */

import type { ServerCapabilities } from './capabilities.ts';
import type { CallOptions, WireClient } from './client/types.ts';
import { VaultError } from './errors.ts';
import type { Item } from './legacy/schemas.ts';
import {
  compareSearchHits,
  matchWords,
  type SearchHit,
  type SearchScope,
  searchWords,
} from './match-words.ts';
import { MAX_SEARCH_LENGTH } from './text.ts';
import type { SearchFallback, SearchResult, SearchStrategy } from './vault/types.ts';

/** What to search. */
export interface SearchQuery {
  /** The folders to search (not their sub-folders, as TeamPass); none finds nothing. */
  folderIds: readonly number[];
  /**
   * The words to find, separated by white space, in any order, each in the label, login, URL or
   * folder path (compared with `foldLabel`); 1–{@link MAX_SEARCH_LENGTH} characters.
   */
  text: string;
}

/** Options of {@link searchItems}. */
export interface SearchOptions extends CallOptions {
  /** The server's capabilities; read from the client when absent. */
  capabilities?: ServerCapabilities | undefined;
  /**
   * With the `labels` fallback, the shortest part of a word worth sending when the text cannot be
   * sent whole: shorter parts match too much to narrow anything. Default 3.
   */
  minRunLength?: number | undefined;
  /** Where the server matches labels only: see {@link SearchFallback}. Default `folders`. */
  fallback?: SearchFallback | undefined;
}

/** What {@link planSearch} decided. */
export interface SearchPlan {
  /** How to ask the server. */
  strategy: SearchStrategy;
  /** What to send to find/item (`words`, `full`, `run`); `undefined` otherwise. */
  query: string | undefined;
}

/** Characters TeamPass's find/item accepts in its search segment. */
const RESTRICTED_RUNS = /[A-Za-z0-9_:'-]+/g;
/** White space, and characters no server can take in a path segment (the codec refuses them). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what splits the text.
const UNSENDABLE = /[\s/\\?#\u0000-\u001f\u007f]+/u;

/** `.` and `..` are dot segments: URL parsers drop them (and their `%2E` spellings) from a path. */
function sendable(run: string): boolean {
  return run !== '' && run !== '.' && run !== '..';
}

/**
 * The parts of a text's words that a label-only find/item accepts, longest first: the words
 * themselves, split where a URL cannot carry a character; on a restricted server (TeamPass) the
 * runs of `[A-Za-z0-9_:'-]`.
 *
 * @param text The search text.
 * @param search The server's search capability.
 * @returns The parts (without `0`, which TeamPass answers with a 500), longest first.
 */
export function searchableRuns(text: string, search: ServerCapabilities['search']): string[] {
  const normalized = text.normalize('NFC');
  const runs =
    search === 'restricted' ? (normalized.match(RESTRICTED_RUNS) ?? []) : normalized.split(UNSENDABLE);
  return runs.filter((run) => sendable(run) && run !== '0').sort((a, b) => b.length - a.length);
}

/**
 * How {@link searchItems} asks a server for a text: on a `words` server the text's words a URL
 * can carry, joined by spaces; elsewhere the searched folders, or, with the `labels` fallback, the
 * longest accepted part of a word when it is the whole text or long enough.
 *
 * @param text The search text.
 * @param search The server's search capability.
 * @param options The fallback (default `folders`) and the shortest part worth sending (default 3).
 * @returns The strategy and what to send.
 */
export function planSearch(
  text: string,
  search: ServerCapabilities['search'],
  options: { fallback?: SearchFallback | undefined; minRunLength?: number | undefined } = {},
): SearchPlan {
  if (search === 'words') {
    const words = text.normalize('NFC').split(UNSENDABLE).filter(sendable);
    // Only dot segments or characters a URL cannot carry: nothing to send, so match here.
    if (words.length === 0) return { strategy: 'folders', query: undefined };
    return { strategy: 'words', query: words.join(' ') };
  }
  if ((options.fallback ?? 'folders') === 'folders') return { strategy: 'folders', query: undefined };
  const [longest] = searchableRuns(text, search);
  if (longest === undefined) return { strategy: 'none', query: undefined };
  if (longest === text.normalize('NFC').trim()) return { strategy: 'full', query: longest };
  return longest.length >= (options.minRunLength ?? 3)
    ? { strategy: 'run', query: longest }
    : { strategy: 'none', query: undefined };
}

/**
 * Searches items by words on any server of the API: the items of the searched folders where every
 * word of the text is found in the label, login, URL or folder path, ranked.
 *
 * @param client The wire operations it reads (the domain client's `items.search` passes its own).
 * @param query The folders and the text.
 * @param options The server's capabilities (read from the client when absent) and the fallback.
 * @returns The matching items, ranked, and how they were found.
 * @throws {VaultError} `invalid_request` for a text without words or one above
 *   {@link MAX_SEARCH_LENGTH} characters; the client's errors otherwise.
 * @example
 * ```ts
 * const { items, truncated } = await searchItems(wire, { folderIds: [1, 2], text: 'prod db' });
 * ```
 */
export async function searchItems(
  client: Pick<WireClient, 'findItems' | 'readFolders' | 'capabilities'>,
  query: SearchQuery,
  options: SearchOptions = {},
): Promise<SearchResult> {
  const words = searchWords(query.text);
  if (words.length === 0)
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
  const result = (plan: SearchPlan, found: readonly Item[]): SearchResult => {
    const folders = new Set(folderIds);
    const scope: SearchScope = plan.strategy === 'full' || plan.strategy === 'run' ? 'label' : 'all';
    const hits: SearchHit[] = [];
    for (const item of found) {
      if (!folders.has(item.folderId)) continue;
      const rank = matchWords(item, words, scope);
      if (rank) hits.push({ item, rank });
    }
    hits.sort(compareSearchHits);
    const cap = capabilities.maxResults;
    return {
      items: hits.map((hit) => hit.item),
      hits,
      serverQuery: plan.query,
      strategy: plan.strategy,
      maxResults: cap,
      truncated: plan.query !== undefined && cap !== undefined && found.length >= cap,
    };
  };
  if (folderIds.length === 0) return result({ strategy: 'none', query: undefined }, []);
  const plan = planSearch(query.text, capabilities.search, options);
  if (plan.query !== undefined) {
    return result(plan, await client.findItems({ folderIds, query: plan.query }, callOptions));
  }
  if (plan.strategy === 'none') return result(plan, []);
  return result(plan, await client.readFolders({ ids: folderIds }, callOptions));
}
