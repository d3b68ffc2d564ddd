import { describe, expect, it, vi } from 'vitest';
import type { VaultError } from './errors.ts';
import { COMPLEXITY_LEVELS } from './legacy/segments.ts';
import {
  characterKinds,
  estimateBits,
  generatePassword,
  meetsComplexity,
  PASSWORD_CHARACTERS,
  randomIndex,
  requiredBits,
} from './password-generator.ts';

const LOOK_ALIKES = /[lIO01]/;

describe('generatePassword', () => {
  it('makes, without rules, 23 characters of all four classes and no look-alikes: the strongest level', () => {
    for (let i = 0; i < 200; i++) {
      const password = generatePassword();
      expect(password).toHaveLength(23);
      expect(characterKinds(password)).toEqual(['lower', 'upper', 'digit', 'symbol']);
      expect(password).not.toMatch(LOOK_ALIKES);
      expect(password).not.toMatch(/[;/"'`\\\s]/);
      expect(meetsComplexity(password, 90)).toBe(true);
    }
  });

  it.each(COMPLEXITY_LEVELS)('reaches complexity level %i, at least 16 characters long', (level) => {
    const password = generatePassword({ complexityLevel: level });
    expect(password.length).toBeGreaterThanOrEqual(16);
    expect(meetsComplexity(password, level)).toBe(true);
  });

  it('uses the classes asked, each at least once, and keeps the length asked', () => {
    for (let i = 0; i < 200; i++) {
      const password = generatePassword({ length: 6, upper: false, symbols: false });
      expect(password).toHaveLength(6);
      expect(characterKinds(password)).toEqual(['lower', 'digit']);
      const lower = generatePassword({ length: 4, upper: false, digits: false, symbols: false });
      expect(lower).toMatch(/^[a-z]{4}$/);
    }
  });

  it('lets look-alikes in only when asked', () => {
    const many = Array.from({ length: 50 }, () => generatePassword({ length: 128, ambiguous: true })).join(
      '',
    );
    expect(many).toMatch(LOOK_ALIKES);
    const none = Array.from({ length: 50 }, () => generatePassword({ length: 128 })).join('');
    expect(none).not.toMatch(LOOK_ALIKES);
  });

  it('makes the length the level needs from fewer classes', () => {
    // 25 lower-case letters: 128 bits take 28 characters, and two more for safety.
    expect(generatePassword({ upper: false, digits: false, symbols: false })).toHaveLength(30);
  });

  it.each([
    [{ length: 3 }, /length of 4 to 128, received 3/],
    [{ length: 129 }, /length of 4 to 128, received 129/],
    [{ length: 8.5 }, /length of 4 to 128, received 8.5/],
    [{ length: Number.NaN }, /received NaN/],
    [{ length: 8, complexityLevel: 90 }, /Complexity level 90 needs 128 bits: at least 23 characters/],
    [{ length: 17, complexityLevel: 70, symbols: false }, /needs 90 bits: at least 18 characters/],
  ])('refuses rules no password meets: %o', (rules, message) => {
    expect(() => generatePassword(rules)).toThrow(message);
    try {
      generatePassword(rules);
    } catch (error) {
      expect((error as VaultError).code).toBe('invalid_request');
    }
  });

  it('accepts a length that reaches the level', () => {
    expect(meetsComplexity(generatePassword({ length: 23, complexityLevel: 90 }), 90)).toBe(true);
  });
});

describe('randomIndex', () => {
  it('draws values that would bias the modulo again instead of folding them', () => {
    const values = [0xffff_ffff, 5];
    vi.spyOn(crypto, 'getRandomValues').mockImplementation((array) => {
      (array as Uint32Array)[0] = values.shift()!;
      return array;
    });
    // 2^32 - 1 is past the largest multiple of 3 below 2^32: it is drawn again.
    expect(randomIndex(3)).toBe(2);
    expect(values).toEqual([]);
  });

  it('spreads its draws evenly', () => {
    const counts = new Array(6).fill(0);
    for (let i = 0; i < 60_000; i++) counts[randomIndex(6)]++;
    // 10 000 each, with a standard deviation of about 91: far beyond chance outside ±600.
    for (const count of counts) expect(Math.abs(count - 10_000)).toBeLessThan(600);
  });
});

describe('strength', () => {
  it('estimates bits from the kinds used', () => {
    expect(estimateBits('')).toBe(0);
    expect(estimateBits('abcd')).toBeCloseTo(4 * Math.log2(26));
    expect(estimateBits('aB3!')).toBeCloseTo(4 * Math.log2(95));
    expect(characterKinds('é')).toEqual(['symbol']);
  });

  it('asks the most of an unknown level and the least of a level below 0', () => {
    expect(requiredBits(undefined)).toBe(128);
    expect(requiredBits(55)).toBe(60);
    expect(requiredBits(-1)).toBe(40);
  });

  it('draws symbols that travel in a URL path and a shell unquoted', () => {
    expect(PASSWORD_CHARACTERS.symbol).not.toMatch(/[;/"'`\\\s]/);
  });
});
