import { describe, expect, it } from 'vitest';
import { planSearch, searchableRuns } from './search.ts';

describe('planSearch', () => {
  it.each([
    ['postgres prod', 'restricted', 'postgres', false],
    ["o'brien:db_1-x", 'restricted', "o'brien:db_1-x", true],
    ['  db  ', 'restricted', 'db', true],
    ['a b', 'restricted', undefined, false],
    ['0', 'restricted', undefined, false],
    ['Ünïcødé', 'restricted', undefined, false],
    ['postgres prod', 'full', 'postgres prod', true],
    ['a/b#c', 'full', undefined, false],
    ['abc/de', 'full', 'abc', false],
    // Dot segments never reach the server: URL parsers drop them from the path.
    ['..', 'full', undefined, false],
    ['.', 'full', undefined, false],
    ['a..b', 'full', 'a..b', true],
  ] as const)('%j on a %s server → %j', (text, search, query, whole) => {
    expect(planSearch(text, search)).toEqual({ query, whole });
  });

  it('lists runs longest first', () => {
    expect(searchableRuns('ab cdef g', 'restricted')).toEqual(['cdef', 'ab', 'g']);
  });
});
