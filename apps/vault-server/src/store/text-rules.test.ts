import { describe, expect, it } from 'vitest';
import { escapeLike, labelKey } from './text-rules.ts';

describe('labelKey', () => {
  it.each([
    ['Café Login', 'cafe login'],
    ['  CAFE LOGIN ', 'cafe login'],
    ['Ｆｕｌｌ', 'full'],
    ['Zürich', 'zurich'],
    ['😀 Key', '😀 key'],
  ])('%j compares as %j', (label, key) => {
    expect(labelKey(label)).toBe(key);
  });
});

describe('escapeLike', () => {
  it('escapes the LIKE wildcards and the escape character', () => {
    expect(escapeLike('100%_a\\b')).toBe('100\\%\\_a\\\\b');
  });
});
