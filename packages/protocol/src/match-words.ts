/**
 * What a search text means: words, each found in the label, login, URL or folder path of an item
 * (folded with {@link foldLabel}, and again with {@link joinWordParts}: `wifi` finds "Wi-Fi"), in
 * any order; and how the items found are ranked.
 *
 * @module
 */

import type { Item } from './legacy/schemas.ts';
import { foldLabel, joinWordParts } from './text.ts';

/** The values of an item a search word is looked for in. */
export type SearchFields = Pick<Item, 'label' | 'login' | 'url' | 'path'>;

/** Where the words are looked for: every field, or the label only (a label-only server's answer). */
export type SearchScope = 'all' | 'label';

/** How well an item matches the words; {@link compareSearchHits} orders by it. */
export interface SearchRank {
  /** How many of the words the label holds at the start of one of its words (`prod` in `production`, not in `reproduce`). */
  readonly labelWords: number;
  /** How many words were found whole: between characters that are not letters or digits. */
  readonly wholeWords: number;
  /** How many of the other words were found at the start of a word (`prod` in `production`). */
  readonly prefixWords: number;
}

/** An item and its rank, as {@link compareSearchHits} orders them. */
export interface SearchHit<T extends Pick<Item, 'id' | 'label'> = Item> {
  /** The item (or any record with its id and label). */
  readonly item: T;
  /** How well it matches. */
  readonly rank: SearchRank;
}

const WHITE_SPACE = /\s+/u;
const WORD_CHARACTER = /^[\p{L}\p{N}]$/u;

/**
 * The words of a search text: folded with {@link foldLabel}, split on white space, each once, in
 * the order typed.
 *
 * @param text The search text.
 * @returns The words; none for a text of spaces and marks only.
 * @example
 * ```ts
 * searchWords('  Prod   DB prod '); // ['prod', 'db']
 * ```
 */
export function searchWords(text: string): string[] {
  return [...new Set(foldLabel(text).split(WHITE_SPACE))].filter((word) => word !== '');
}

function isWordCharacter(character: string | undefined): boolean {
  return character !== undefined && WORD_CHARACTER.test(character);
}

/** The code point ending just before `index` (both halves of a surrogate pair). */
function characterBefore(text: string, index: number): string | undefined {
  if (index <= 0) return undefined;
  const low = text.charCodeAt(index - 1);
  const pair = low >= 0xdc00 && low <= 0xdfff && index >= 2;
  return text.slice(pair ? index - 2 : index - 1, index);
}

/** The code point starting at `index`. */
function characterAt(text: string, index: number): string | undefined {
  const code = text.codePointAt(index);
  return code === undefined ? undefined : String.fromCodePoint(code);
}

/** How a word sits in a folded field: 2 whole, 1 at a word's start, 0 inside a word, -1 absent. */
function placeOf(field: string, word: string): number {
  const openStart = !isWordCharacter(characterAt(word, 0));
  const openEnd = !isWordCharacter(characterBefore(word, word.length));
  let best = -1;
  for (let at = field.indexOf(word); at !== -1; at = field.indexOf(word, at + 1)) {
    const starts = openStart || !isWordCharacter(characterBefore(field, at));
    if (!starts) {
      best = Math.max(best, 0);
      continue;
    }
    if (openEnd || !isWordCharacter(characterAt(field, at + word.length))) return 2;
    best = 1;
  }
  return best;
}

/**
 * Whether every word is found in some field of the item, and how well.
 *
 * @param fields The item's label, login, URL and folder path (each folder title is a field).
 * @param words The folded words ({@link searchWords}).
 * @param scope Where to look: every field (default), or the label only.
 * @returns The rank, or `undefined` when a word is in no field (or there are no words).
 */
export function matchWords(
  fields: SearchFields,
  words: readonly string[],
  scope: SearchScope = 'all',
): SearchRank | undefined {
  if (words.length === 0) return undefined;
  const label = foldLabel(fields.label);
  const others =
    scope === 'label'
      ? []
      : [foldLabel(fields.login), foldLabel(fields.url), ...fields.path.map((title) => foldLabel(title))];
  const joinedLabel = joinWordParts(label);
  const joinedOthers = others.map(joinWordParts);
  let labelWords = 0;
  let wholeWords = 0;
  let prefixWords = 0;
  for (const word of words) {
    // Each field is also compared without the punctuation inside its words, the word too.
    const joined = joinWordParts(word);
    let best = Math.max(placeOf(label, word), placeOf(joinedLabel, joined));
    if (best >= 1) labelWords++;
    for (let i = 0; i < others.length && best < 2; i++)
      best = Math.max(best, placeOf(others[i]!, word), placeOf(joinedOthers[i]!, joined));
    if (best < 0) return undefined;
    if (best === 2) wholeWords++;
    else if (best === 1) prefixWords++;
  }
  return { labelWords, wholeWords, prefixWords };
}

/**
 * Made on the first comparison: a collator loads ICU's collation data (about 3 MiB of a process's
 * memory), which a process that never sorts results (a server at rest, most CLI commands) spares.
 */
let labelOrder: Intl.Collator | undefined;

function compareLabels(a: string, b: string): number {
  labelOrder ??= new Intl.Collator('en', { sensitivity: 'base', numeric: true });
  return labelOrder.compare(a, b);
}

/**
 * The order of search results: more words at the start of a word of the label first, then more
 * words found whole (in any field), then more found at a word's start, then by label (alphabetical,
 * ignoring case and accents, numbers by value), then by id.
 *
 * @param a One hit.
 * @param b Another.
 * @returns Negative when `a` comes first, positive when `b` does, 0 for the same item.
 */
export function compareSearchHits(
  a: SearchHit<Pick<Item, 'id' | 'label'>>,
  b: SearchHit<Pick<Item, 'id' | 'label'>>,
): number {
  return (
    b.rank.labelWords - a.rank.labelWords ||
    b.rank.wholeWords - a.rank.wholeWords ||
    b.rank.prefixWords - a.rank.prefixWords ||
    compareLabels(a.item.label, b.item.label) ||
    (a.item.label < b.item.label ? -1 : a.item.label > b.item.label ? 1 : 0) ||
    a.item.id - b.item.id
  );
}
