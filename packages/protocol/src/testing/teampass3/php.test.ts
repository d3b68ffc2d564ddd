import { describe, expect, it } from 'vitest';
import {
  collationEquals,
  phpEmpty,
  phpInt,
  phpIsNumeric,
  phpJson,
  phpParseStr,
  phpStripSlashes,
  phpStripTags,
  phpTrim,
  phpUrlDecode,
  xssClean,
} from './php.ts';

describe('the PHP semantics of the fake', () => {
  it.each([
    ['12abc', 12],
    ['abc', 0],
    [' 7', 7],
    ['1e3', 1000],
    ['1.9', 1],
    [true, 1],
    [null, 0],
    [[1], 1],
    [[], 0],
    [3.7, 3],
  ] as const)('(int) %j is %i', (value, expected) => {
    expect(phpInt(value as Parameters<typeof phpInt>[0])).toBe(expected);
  });

  it('knows what empty() and is_numeric() say', () => {
    expect(['', '0', 0, null, false, []].every((value) => phpEmpty(value))).toBe(true);
    expect(['00', ' ', 'a', 1].some((value) => phpEmpty(value))).toBe(false);
    expect([phpIsNumeric(' 12 '), phpIsNumeric('1e5'), phpIsNumeric('12a'), phpIsNumeric('')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  it('parses query strings and form bodies like parse_str()', () => {
    expect(phpParseStr('a=1+2&b[]=x&b[]=y&c[k]=v&d.e=%26&f')).toEqual({
      a: '1 2',
      b: ['x', 'y'],
      c: { k: 'v' },
      d_e: '&',
      f: '',
    });
    expect(phpUrlDecode('%E2%82%AC%zz+')).toBe('€%zz ');
  });

  it('encodes JSON like json_encode()', () => {
    expect(phpJson({ url: 'https://x/y', text: 'ÄÖ€ 😀' })).toBe(
      '{"url":"https:\\/\\/x\\/y","text":"\\u00c4\\u00d6\\u20ac \\ud83d\\ude00"}',
    );
  });

  it('trims, strips tags and slashes, and compares like MariaDB', () => {
    expect(phpTrim('\0 a \x0B')).toBe('a');
    expect(phpStripTags('a <b>bold</b> < c <!-- x -->')).toBe('a bold < c ');
    expect(phpStripSlashes("a\\'b\\\\c")).toBe("a'b\\c");
    expect(collationEquals('Élan ', 'elan')).toBe(true);
    expect(xssClean('<b onclick="x()">a</b><script>alert(1)</script>')).toBe('<b>a</b>');
    expect(xssClean('if a <b then <!-- c --> 2 < 3')).toBe('if a &lt;b then &lt;!-- c --&gt; 2 < 3');
  });
});
