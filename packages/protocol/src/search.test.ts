import { describe, expect, it } from 'vitest';
import { planSearch, searchableRuns } from './search.ts';

describe('planSearch', () => {
  it.each([
    // A words server gets the text once, its words joined by one space.
    ['prod db', 'prod db'],
    ['  prod \t  db ', 'prod db'],
    ['db.prod', 'db.prod'],
    ['Café 🎉 東京', 'Café 🎉 東京'],
    // What a URL cannot carry splits words: the server finds more, the core keeps the right ones.
    ['prod/eu', 'prod eu'],
    ['a?b#c\\d\u0000e', 'a b c d e'],
    // Dot segments never reach the server: URL parsers drop them from the path.
    ['a .. b', 'a b'],
  ] as const)('%j on a words server → find/item %j', (text, query) => {
    expect(planSearch(text, 'words')).toEqual({ strategy: 'words', query });
  });

  it.each(['.', '..', ' / ', '. ..'])('%j on a words server → the folders (nothing to send)', (text) => {
    expect(planSearch(text, 'words')).toEqual({ strategy: 'folders', query: undefined });
  });

  it.each(['full', 'restricted'] as const)(
    'reads the folders on a label-only (%s) server by default',
    (search) => {
      expect(planSearch('postgres', search)).toEqual({ strategy: 'folders', query: undefined });
    },
  );

  it.each([
    ['postgres prod', 'restricted', 'run', 'postgres'],
    ["o'brien:db_1-x", 'restricted', 'full', "o'brien:db_1-x"],
    ['  db  ', 'restricted', 'full', 'db'],
    ['a b', 'restricted', 'none', undefined],
    ['0', 'restricted', 'none', undefined],
    ['Ünïcødé', 'restricted', 'none', undefined],
    ['postgres prod', 'full', 'run', 'postgres'],
    ['Café', 'full', 'full', 'Café'],
    ['a/b#c', 'full', 'none', undefined],
    ['abc/de', 'full', 'run', 'abc'],
    ['..', 'full', 'none', undefined],
    ['a..b', 'full', 'full', 'a..b'],
  ] as const)('%j on a %s server with the labels fallback → %s %j', (text, search, strategy, query) => {
    expect(planSearch(text, search, { fallback: 'labels' })).toEqual({ strategy, query });
  });

  it('sends shorter parts when told', () => {
    expect(planSearch('ab cd', 'restricted', { fallback: 'labels', minRunLength: 2 })).toEqual({
      strategy: 'run',
      query: 'ab',
    });
  });

  it('lists runs longest first', () => {
    expect(searchableRuns('ab cdef g', 'restricted')).toEqual(['cdef', 'ab', 'g']);
    expect(searchableRuns('ab cdef/g 0', 'full')).toEqual(['cdef', 'ab', 'g']);
  });
});
