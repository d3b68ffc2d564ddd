import { describe, expect, it } from 'vitest';
import { complexityName, strengthProblem } from './password-strength.ts';

describe('strengthProblem', () => {
  it("judges by the folder's own level and says what is missing", () => {
    expect(strengthProblem('Qk7!mZp2xW', 60)).toBe(
      'too weak for this folder. It asks for "Strong": 72 bits. This password has 65 bits (10 characters of 4 kinds). Add 1 more character, or use the generator.',
    );
    expect(strengthProblem('Qk7!mZp2xW', 50)).toBeUndefined();
  });

  it('asks for the strongest level where the server does not say the rule, and says so', () => {
    expect(strengthProblem('Tr0ub4dor&3-Horse!x', undefined)).toBe(
      'too weak for this folder. The vault does not say its rule, so Vaultline asks for the strongest, "Very heavy": 128 bits. This password has 124 bits (19 characters of 4 kinds). Add 1 more character, or use the generator.',
    );
  });

  it('names the kinds a password lacks when they would help more', () => {
    expect(strengthProblem('abcdefgh', 50)).toMatch(
      /^too weak for this folder\. It asks for "Medium": 60 bits\. This password has 37 bits \(8 characters of 1 kind\)\. Add 5 more characters, or \d+ with capitals, digits, symbols, or use the generator\.$/,
    );
  });
});

describe('complexityName', () => {
  it('names each level as TeamPass does, a level between two by the lower', () => {
    expect([0, 25, 50, 60, 70, 80, 90, 65].map(complexityName)).toEqual([
      'Very weak',
      'Weak',
      'Medium',
      'Strong',
      'Very strong',
      'Heavy',
      'Very heavy',
      'Strong',
    ]);
  });
});
