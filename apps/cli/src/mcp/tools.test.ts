import { describe, expect, it } from 'vitest';
import { ToolFailure } from './failure.ts';
import { parseFieldName } from './tools/get-reference.ts';
import { secretRange } from './tools/store-secret.ts';
import { MAX_UNTRUSTED_LENGTH, untrusted, untrustedUrl } from './untrusted.ts';

const picked = (text: string, input: Parameters<typeof secretRange>[1]) => {
  const { start, end } = secretRange(text, input);
  return text.slice(start, end);
};

describe('secretRange', () => {
  it("takes a KEY=value or key: value line's value, without its quotes", () => {
    const text = 'A=1\nexport DB_PASS="p@ss word"\n  password: \'yaml-pw\'\r\nTOKEN = tok_123  \n';
    expect(picked(text, { line: 1 })).toBe('1');
    expect(picked(text, { line: 2 })).toBe('p@ss word');
    expect(picked(text, { line: 3 })).toBe('yaml-pw');
    expect(picked(text, { line: 4 })).toBe('tok_123');
  });

  it('takes columns as characters, astral ones included, end excluded', () => {
    const text = 'x\n😀😀 key(abc🦄def) tail\n';
    expect(picked(text, { line: 2, startColumn: 8, endColumn: 15 })).toBe('abc🦄def');
    expect(picked(text, { line: 2, startColumn: 17 })).toBe('tail');
  });

  it('refuses a line or a range that does not exist, and a line with no value', () => {
    const refused = (input: Parameters<typeof secretRange>[1], text = 'A=1\nplain text\n') => {
      try {
        secretRange(text, input);
      } catch (error) {
        return error instanceof ToolFailure ? error.code : 'other';
      }
      return 'accepted';
    };
    expect(refused({ line: 9 })).toBe('bad_input');
    expect(refused({ line: 2 })).toBe('bad_input');
    expect(refused({ line: 1, startColumn: 3, endColumn: 3 })).toBe('bad_input');
    expect(refused({ line: 1, startColumn: 1, endColumn: 9 })).toBe('bad_input');
  });
});

describe('parseFieldName', () => {
  it('reads fields, otp and file names', () => {
    expect(parseFieldName('login')).toBe('login');
    expect(parseFieldName('otp')).toBe('otp');
    expect(parseFieldName('file:id rsa.pem')).toEqual({ file: 'id rsa.pem' });
    expect(() => parseFieldName('Hunter2-secret')).toThrow(/^Unknown field: expected/);
    expect(() => parseFieldName('Hunter2-secret')).not.toThrow(/Hunter2/);
  });
});

describe('untrusted text', () => {
  it('is bounded, and loses control and format characters', () => {
    expect(untrusted('a\u0007b\u202ec\u200bd\u0000')).toBe('a\ufffdb\ufffdc\ufffdd\ufffd');
    const long = untrusted('🦄'.repeat(500));
    expect(Array.from(long)).toHaveLength(MAX_UNTRUSTED_LENGTH);
    expect(long.endsWith('…')).toBe(true);
    expect(untrusted('short')).toBe('short');
  });

  it("hides a password in a URL's user info", () => {
    expect(untrustedUrl('postgres://app:s3cr3t@db:5432/app')).toBe('postgres://app:[hidden]@db:5432/app');
    expect(untrustedUrl('https://user@example.com/x?a=b@c')).toBe('https://user@example.com/x?a=b@c');
    expect(untrustedUrl('https://example.com/login')).toBe('https://example.com/login');
  });
});
