import { describe, expect, it } from 'vitest';
import { parseBigint } from './bigint.ts';

describe('parseBigint', () => {
  it('reads every bigint a number holds exactly', () => {
    expect(parseBigint('0')).toBe(0);
    expect(parseBigint('42')).toBe(42);
    expect(parseBigint('-7')).toBe(-7);
    expect(parseBigint('1767225600000')).toBe(1_767_225_600_000);
    expect(parseBigint('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseBigint('-9007199254740991')).toBe(Number.MIN_SAFE_INTEGER);
  });

  it('refuses a bigint a number would round, rather than return another value', () => {
    for (const text of ['9007199254740992', '9007199254740993', '-9007199254740993', '9223372036854775807'])
      expect(() => parseBigint(text)).toThrow(RangeError);
    expect(() => parseBigint('9007199254740993')).toThrow(/9007199254740993, beyond what a number holds/);
  });
});
