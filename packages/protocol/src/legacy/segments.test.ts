import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VaultError } from '../errors.ts';
import {
  COMPLEXITY_LEVELS,
  decodeLenientFolderUpdate,
  decodeTeamPassPasswordRules,
  type EncodeContext,
  folderCreateSegment,
  folderUpdateSegment,
  idListSegment,
  idSegment,
  itemSegment,
  passwordRulesSegment,
  rawSegment,
} from './segments.ts';

const blob: EncodeContext = { folderEncoding: 'blob' };
const perValue: EncodeContext = { folderEncoding: 'values' };

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof VaultError ? error.code : 'not a VaultError';
  }
  return undefined;
}

describe('segments', () => {
  it('round-trip a folder creation in both encodings', () => {
    const title = fc.string({ maxLength: 30 }).filter((value) => !value.includes(';'));
    fc.assert(
      fc.property(
        fc.record({
          title,
          complexityLevel: fc.constantFrom(...COMPLEXITY_LEVELS),
          parentId: fc.integer({ min: 0, max: 999_999 }),
          renewalPeriod: fc.integer({ min: 0, max: 120 }),
          personal: fc.boolean(),
        }),
        (folder) => {
          for (const context of [blob, perValue]) {
            expect(folderCreateSegment.decode(folderCreateSegment.encode(folder, context))).toEqual(folder);
          }
        },
      ),
    );
  });

  it('fills defaults for a minimal folder', () => {
    const segment = folderCreateSegment.encode({ title: 'Ops' }, blob);
    expect(Buffer.from(segment, 'base64url').toString()).toBe('Ops;0;0;0;0');
    expect(folderCreateSegment.decode(segment)).toEqual({
      title: 'Ops',
      complexityLevel: 0,
      parentId: 0,
      renewalPeriod: 0,
      personal: false,
    });
  });

  it('round-trips a folder update in both encodings', () => {
    const folder = { title: 'Ops é🔑', complexityLevel: 50 as const, renewalPeriod: 6 };
    for (const context of [blob, perValue]) {
      expect(folderUpdateSegment.decode(folderUpdateSegment.encode(folder, context))).toEqual(folder);
    }
    expect(Buffer.from(folderUpdateSegment.encode(folder, blob), 'base64url').toString()).toBe(
      'Ops é🔑;50;6',
    );
  });

  it.each([
    ['a non-numeric complexity', 'T;high;0;0;0'],
    ['a negative parent', 'T;0;-1;0;0'],
    ['a fractional renewal period', 'T;0;0;1.5;0'],
    ['a personal flag that is not 0 or 1', 'T;0;0;0;yes'],
    ['four values', 'T;0;0;0'],
  ])('refuses a folder creation with %s', (_, values) => {
    expect(codeOf(() => folderCreateSegment.decode(Buffer.from(values).toString('base64url')))).toBe(
      'invalid_request',
    );
  });

  it('refuses a folder update with a bad number', () => {
    expect(codeOf(() => folderUpdateSegment.decode(Buffer.from('T;x;0').toString('base64url')))).toBe(
      'invalid_request',
    );
  });

  it('treats an empty personal flag as 0', () => {
    expect(folderCreateSegment.decode(Buffer.from('T;0;0;0;').toString('base64url')).personal).toBe(false);
  });

  it('marks only the item values as secret, and only id lists as lists', () => {
    expect(itemSegment.secret).toBe(true);
    for (const segment of [
      idSegment,
      idListSegment,
      folderCreateSegment,
      folderUpdateSegment,
      rawSegment('x'),
    ]) {
      expect(segment.secret).toBe(false);
    }
    expect(idListSegment.list).toBe(true);
    expect(idSegment.list).toBe(false);
  });

  it('round-trips ids, id lists, items and raw values through their segments', () => {
    expect(idSegment.decode(idSegment.encode(42, blob))).toBe(42);
    expect(idListSegment.decode(idListSegment.encode([1, 2, 3], blob))).toEqual([1, 2, 3]);
    const item = { label: 'a;b', password: 'p/w+=', folderId: 4 };
    expect(itemSegment.decode(itemSegment.encode(item, blob))).toMatchObject({
      label: 'a;b',
      password: 'p/w+=',
      folderId: '4',
    });
    const login = rawSegment('login');
    expect(login.description).toBe('the login, raw (not base64)');
    expect(login.decode(login.encode('jean dupont', blob))).toBe('jean dupont');
  });
});

describe('the new_password segment', () => {
  const decode = (segment: string) => passwordRulesSegment.decode(segment);

  it("reads TeamPass's seven values in TeamPass's order", () => {
    expect(decode('20;0;1;0;1;1;1')).toEqual({
      rules: {
        length: 20,
        complexityLevel: undefined,
        upper: false,
        digits: true,
        symbols: true,
        ambiguous: true,
      },
      base64: true,
    });
  });

  it('turns every class on with secure, whatever the class flags say', () => {
    expect(decode('12;1;0;0;0;0;0').rules).toMatchObject({ upper: true, digits: true, symbols: true });
  });

  it('reads absent and empty values as the defaults, size 0 as no size, and ignores values past the eighth', () => {
    expect(decode('16')).toEqual({
      rules: {
        length: 16,
        complexityLevel: undefined,
        upper: undefined,
        digits: undefined,
        symbols: undefined,
        ambiguous: undefined,
      },
      base64: false,
    });
    expect(decode('0;;;;;;').rules.length).toBeUndefined();
    expect(decode(';1;1;1;0;1;0;60;extra;more').rules).toMatchObject({
      length: undefined,
      complexityLevel: 60,
    });
  });

  it.each([
    ['abc;1', /size to be a whole number/],
    ['-5;1', /size to be a whole number/],
    ['16;2', /secure to be 0 or 1, received "2"/],
    ['16;1;yes', /numerals to be 0 or 1/],
    ['16;1;1;1;0;1;0;55', /complexity to be one of 0, 25, 50, 60, 70, 80, 90, received "55"/],
    ['16;1;1;1;0;1;0;090', /complexity to be one of/],
  ])('refuses %s with invalid_request', (segment, message) => {
    expect(() => decode(segment)).toThrow(message);
    expect(codeOf(() => decode(segment))).toBe('invalid_request');
  });

  it('sends the length its rules give, secure only with every class, and the complexity level', () => {
    expect(passwordRulesSegment.encode({}, blob)).toBe('23;1;1;1;0;1;0;');
    expect(passwordRulesSegment.encode({ length: 12, symbols: false, ambiguous: true }, blob)).toBe(
      '12;0;1;1;1;0;0;',
    );
    expect(passwordRulesSegment.encode({ complexityLevel: 50 }, blob)).toBe('16;1;1;1;0;1;0;50');
    const sent = passwordRulesSegment.encode({ complexityLevel: 0, upper: false }, blob);
    expect(decode(sent).rules).toMatchObject({ complexityLevel: 0, upper: false, length: 16 });
  });

  it('refuses rules no password meets before anything is sent', () => {
    expect(codeOf(() => passwordRulesSegment.encode({ length: 200 }, blob))).toBe('invalid_request');
    expect(codeOf(() => passwordRulesSegment.encode({ complexityLevel: 55 }, blob))).toBe('invalid_request');
  });
});

describe('decodeLenientFolderUpdate (the teampass profile)', () => {
  const blobOf = (text: string) => Buffer.from(text).toString('base64url');

  it("reads the spec's three values, in both forms", () => {
    const expected = { title: 'Ops', complexityLevel: 50, renewalPeriod: 6 };
    expect(decodeLenientFolderUpdate(blobOf('Ops;50;6'))).toEqual(expected);
    expect(decodeLenientFolderUpdate('T3Bz;NTA;Ng')).toEqual(expected);
  });

  it("ignores a fourth value, and reads five or more in add/folder's order", () => {
    expect(decodeLenientFolderUpdate(blobOf('Ops;50;6;junk'))).toEqual({
      title: 'Ops',
      complexityLevel: 50,
      renewalPeriod: 6,
    });
    // title;complexity;parent;renewal;personal: the parent (8) is not a renewal period.
    expect(decodeLenientFolderUpdate(blobOf('Ops;60;8;12;0'))).toEqual({
      title: 'Ops',
      complexityLevel: 60,
      renewalPeriod: 12,
    });
    expect(decodeLenientFolderUpdate(blobOf('Ops;60;8;12;1;extra;more')).renewalPeriod).toBe(12);
  });

  it('refuses fewer than three values and bad numbers', () => {
    expect(() => decodeLenientFolderUpdate(blobOf('Ops;50'))).toThrow(/at least 3 folder values/);
    expect(codeOf(() => decodeLenientFolderUpdate(blobOf('Ops;high;0;1;0')))).toBe('invalid_request');
    expect(codeOf(() => decodeLenientFolderUpdate('%%%'))).toBe('invalid_request');
  });
});

describe('decodeTeamPassPasswordRules (the teampass profile, as TeamPass 2 reads new_password)', () => {
  it('reads the size as the number the first value starts with, and flags only when exactly 1', () => {
    expect(decodeTeamPassPasswordRules('12:1:1:10;0')).toEqual({
      rules: {
        length: 12,
        complexityLevel: undefined,
        upper: true,
        digits: true,
        symbols: false,
        ambiguous: false,
      },
      base64: false,
    });
    expect(decodeTeamPassPasswordRules('12;1;1;1;10;0').rules).toMatchObject({ length: 12, symbols: true });
    expect(decodeTeamPassPasswordRules('0;0;0;0;0;1;1')).toMatchObject({
      rules: { length: 8, symbols: true },
      base64: true,
    });
    expect(decodeTeamPassPasswordRules('x;yes').rules).toMatchObject({ length: 8, symbols: false });
    expect(decodeTeamPassPasswordRules(';1;1;1;0;1;0;90').rules).toMatchObject({
      length: undefined,
      complexityLevel: 90,
    });
  });

  it('refuses no rules at all, as TeamPass answers "No parameters given"', () => {
    expect(codeOf(() => decodeTeamPassPasswordRules(''))).toBe('invalid_request');
  });
});
