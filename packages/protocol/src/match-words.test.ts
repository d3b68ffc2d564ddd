import { describe, expect, it } from 'vitest';
import {
  compareSearchHits,
  matchWords,
  type SearchFields,
  type SearchRank,
  searchWords,
} from './match-words.ts';

/** The item: "PostgreSQL production" at db.prod.internal, login app_rw. */
const postgres: SearchFields = {
  label: 'PostgreSQL production',
  login: 'app_rw',
  url: 'https://db.prod.internal:5432',
  path: ['Infrastructure', 'Databases'],
};

const matches = (text: string, fields: SearchFields = postgres) => matchWords(fields, searchWords(text));

describe('searchWords', () => {
  it.each([
    ['prod db', ['prod', 'db']],
    ['  Prod   DB prod ', ['prod', 'db']],
    ['db.prod', ['db.prod']],
    ['APP_RW', ['app_rw']],
    ['Café  CRÈME', ['cafe', 'creme']],
    // Compatibility forms (full-width, ligatures, mathematical letters) fold to their plain letters.
    ['ｚｕｒｉｃｈ ﬁle 𝐃𝐁', ['zurich', 'file', 'db']],
    // Every kind of white space separates words: tab, new line, no-break and ideographic spaces.
    ['a\tb\nc\u00a0d\u3000e\u2003f', ['a', 'b', 'c', 'd', 'e', 'f']],
    // Emoji are kept (their variation selector is a mark and goes), CJK too.
    ['🔑 ❤️ 東京', ['🔑', '❤', '東京']],
    ['', []],
    ['   \t ', []],
    ['\u0301\u0308', []],
  ])('%j → %j', (text, words) => {
    expect(searchWords(text)).toEqual(words);
  });

  it('keeps hostile characters inside words as they are (they are only compared, never run)', () => {
    expect(searchWords("'; DROP TABLE items; --")).toEqual(["';", 'drop', 'table', 'items;', '--']);
    expect(searchWords('%2F..%2F \u202eevil \u0000x')).toEqual(['%2f..%2f', '\u202eevil', '\u0000x']);
  });
});

describe('matchWords', () => {
  it.each([
    'prod db',
    'db prod',
    'db.prod',
    'app_rw',
    'postgresql',
    'PROD',
    'internal 5432',
    'databases prod',
    'infra postgres app',
    'https://db.prod.internal:5432',
  ])('finds the issue item by %j (every word, in any field, in any order)', (text) => {
    expect(matches(text)).toBeDefined();
  });

  it.each([
    ['prod mysql', 'one word is nowhere'],
    ['production.db', 'the label and the URL are two fields'],
    ['rwhttps', 'the login and the URL are two fields'],
    ['infrastructuredatabases', 'two folder titles are two fields'],
    ['structure>databases', 'the path separator is no text'],
  ])('refuses %j: %s', (text) => {
    expect(matches(text)).toBeUndefined();
  });

  it('ignores case, accents and compatibility forms on both sides', () => {
    const cafe = { label: 'Café Wi-Fi ☕', login: 'ÉLODIE', url: '', path: ['Zürich'] };
    expect(matches('cafe WI-FI elodie zurich ☕', cafe)).toBeDefined();
    expect(matches('ｃａｆé', cafe)).toBeDefined();
    expect(matches('café', { ...cafe, label: 'CAFE\u0301' })).toBeDefined();
  });

  it('leaves out punctuation inside words on both sides: wifi finds "Office Wi-Fi"', () => {
    const office = { label: 'Office Wi-Fi', login: "o'neil", url: '', path: ['Net.work'] };
    expect(matches('wifi', office)).toEqual({ labelWords: 1, wholeWords: 1, prefixWords: 0 });
    expect(matches('office wifi', office)).toEqual({ labelWords: 2, wholeWords: 2, prefixWords: 0 });
    expect(matches('wif', office)).toEqual({ labelWords: 1, wholeWords: 0, prefixWords: 1 });
    expect(matches('wi-fi', { ...office, label: 'Office WiFi' })).toBeDefined();
    expect(matches('oneil network', office)).toEqual({ labelWords: 0, wholeWords: 2, prefixWords: 0 });
    expect(matches('apprw dbprodinternal')).toBeDefined();
    expect(matches('officewifi', office)).toBeUndefined();
  });

  it('finds emoji and CJK inside and between words', () => {
    const item = { label: '🔑db 東京サーバー', login: '', url: '', path: ['👩‍💻 team'] };
    expect(matches('🔑 東京 👩‍💻', item)).toBeDefined();
    expect(matches('🔑 db', item)).toEqual({ labelWords: 2, wholeWords: 2, prefixWords: 0 });
    expect(matches('🔒', item)).toBeUndefined();
  });

  it('looks in the label only when told to', () => {
    expect(matchWords(postgres, ['prod'], 'label')).toBeDefined();
    expect(matchWords(postgres, ['prod', 'db'], 'label')).toBeUndefined();
    expect(matchWords(postgres, ['app_rw'], 'label')).toBeUndefined();
  });

  it('finds nothing for no words', () => {
    expect(matchWords(postgres, [])).toBeUndefined();
  });

  it('counts label words, whole words and word starts', () => {
    // "prod": start of "production" (label) and whole in the URL; "db": whole in the URL.
    expect(matches('prod db')).toEqual({ labelWords: 1, wholeWords: 2, prefixWords: 0 });
    expect(matches('postgres')).toEqual({ labelWords: 1, wholeWords: 0, prefixWords: 1 });
    // Inside a word of the label: found, but not counted as a label word.
    expect(matches('gresql duct')).toEqual({ labelWords: 0, wholeWords: 0, prefixWords: 0 });
    expect(matches('rw')).toEqual({ labelWords: 0, wholeWords: 1, prefixWords: 0 });
    // A word that starts or ends with a separator is at a word's edge there.
    expect(matches('.internal')).toEqual({ labelWords: 0, wholeWords: 1, prefixWords: 0 });
  });

  it('answers on the longest fields and words (every occurrence looked at)', () => {
    const huge = { label: 'a'.repeat(500), login: 'a'.repeat(8192), url: 'ab'.repeat(4096), path: [] };
    expect(matchWords(huge, [`${'a'.repeat(99)}b`])).toBeUndefined();
    expect(matchWords(huge, ['ba'.repeat(50)])).toEqual({ labelWords: 0, wholeWords: 0, prefixWords: 0 });
    expect(matchWords(huge, ['a'.repeat(100)])).toEqual({ labelWords: 1, wholeWords: 0, prefixWords: 1 });
  });
});

describe('compareSearchHits', () => {
  const hit = (id: number, label: string, rank: Partial<SearchRank> = {}) => ({
    item: { id, label },
    rank: { labelWords: 0, wholeWords: 0, prefixWords: 0, ...rank },
  });

  it('puts label words first, then whole words, then word starts, then label, then id', () => {
    const hits = [
      hit(1, 'a', { wholeWords: 2 }),
      hit(2, 'z', { labelWords: 1 }),
      hit(3, 'b', { wholeWords: 1, prefixWords: 1 }),
      hit(4, 'c', { wholeWords: 1 }),
      hit(5, 'a', { wholeWords: 1, prefixWords: 1 }),
      hit(6, 'a', { wholeWords: 1, prefixWords: 1 }),
      hit(7, 'y', { labelWords: 2 }),
    ];
    expect(hits.sort(compareSearchHits).map((h) => h.item.id)).toEqual([7, 2, 1, 5, 6, 3, 4]);
  });

  it('orders labels ignoring case and accents, numbers by value', () => {
    const labels = ['db10', 'Éclair', 'db2', 'eclair', 'apple', 'DB1'];
    const sorted = labels.map((label, id) => hit(id, label)).sort(compareSearchHits);
    expect(sorted.map((h) => h.item.label)).toEqual(['apple', 'DB1', 'db2', 'db10', 'eclair', 'Éclair']);
  });

  it('ranks the issue item before items that hold the words elsewhere only', () => {
    const words = searchWords('prod db');
    const items = [
      { id: 1, label: 'Billing service', login: 'prod', url: 'https://db.example.com', path: [] },
      { id: 2, label: postgres.label, login: postgres.login, url: postgres.url, path: postgres.path },
      { id: 3, label: 'prod db', login: '', url: '', path: [] },
      { id: 4, label: 'Reproduce dbg', login: '', url: '', path: [] },
    ];
    const ranked = items
      .map((item) => ({ item, rank: matchWords(item, words)! }))
      .sort(compareSearchHits)
      .map((h) => h.item.id);
    // "Reproduce dbg" holds both words in its label, but inside words: the issue item comes first.
    expect(ranked).toEqual([3, 2, 4, 1]);
  });
});
