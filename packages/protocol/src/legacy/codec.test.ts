import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VaultError } from '../errors.ts';
import {
  decodeFolderValues,
  decodeId,
  decodeIdList,
  decodeIdValue,
  decodeItemValues,
  decodeRawSegment,
  decodeValue,
  decodeValueList,
  encodeFolderValues,
  encodeId,
  encodeIdList,
  encodeItemValues,
  encodeRawSegment,
  encodeValue,
  encodeValueList,
  ITEM_VALUE_NAMES,
  isValidId,
  itemToValues,
  MAX_ID,
  parseId,
} from './codec.ts';

/** Text with the characters that break naive encoders, mixed into arbitrary unicode. */
const hostileChar = fc.constantFrom(
  ';',
  '/',
  '+',
  '=',
  '%',
  '\n',
  '\r',
  '\0',
  '🔑',
  'é',
  '?',
  '#',
  ' ',
  '\\',
);
const hostileText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: fc.oneof(hostileChar, fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })) }),
  fc.string({ unit: 'binary', maxLength: 60 }),
);

function expectInvalid(run: () => unknown, secret?: string): VaultError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(VaultError);
  const error = caught as VaultError;
  expect(error.code).toBe('invalid_request');
  if (secret !== undefined) {
    expect(error.message).not.toContain(secret);
    expect(JSON.stringify(error)).not.toContain(secret);
  }
  return error;
}

/** What the spec describes, done with Node's own base64: the reference the codec is pinned to. */
function reference(value: string): string {
  return Buffer.from(value).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

describe('encodeValue', () => {
  it.each([
    ['p@ss/word?', 'cEBzcy93b3JkPw=='],
    ['db-prod', 'ZGItcHJvZA=='],
    ['s3cret', 'czNjcmV0'],
    ['Hello, World!', 'SGVsbG8sIFdvcmxkIQ=='],
    ['é', 'w6k='],
    ['🔑', '8J-UkQ=='],
    ['>>>', 'Pj4-'],
    ['???', 'Pz8_'],
    ['\u00ff\u00fe', 'w7_Dvg=='],
    ['~~~?', 'fn5-Pw=='],
    ['a;b/c+d=e%f\n', 'YTtiL2MrZD1lJWYK'],
    ['\0', 'AA=='],
    ['', ''],
  ])('encodes %j as the pinned bytes %j', (value, encoded) => {
    expect(encodeValue(value)).toBe(encoded);
    expect(reference(value)).toBe(encoded);
  });

  it('matches Node base64 with +→- and /→_ for any text', () => {
    fc.assert(
      fc.property(hostileText, (value) => {
        expect(encodeValue(value)).toBe(reference(value));
      }),
    );
  });

  it('never produces a character that breaks a TeamPass path', () => {
    fc.assert(
      fc.property(hostileText, (value) => {
        expect(encodeValue(value)).toMatch(/^[A-Za-z0-9_=-]*$/);
      }),
    );
  });
});

describe('decodeValue', () => {
  it('round-trips arbitrary unicode, including ; / + = % newlines, emoji and NUL', () => {
    fc.assert(
      fc.property(hostileText, (value) => {
        expect(decodeValue(encodeValue(value))).toBe(value);
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips a 1 MiB value and a 3-byte-aligned and unaligned long value', () => {
    const long = `${'🔑;/+=%\n\0é'.repeat(80_000)}x`;
    expect(decodeValue(encodeValue(long))).toBe(long);
    for (const length of [3 * 10_000, 3 * 10_000 + 1, 3 * 10_000 + 2]) {
      const value = 'a'.repeat(length);
      expect(decodeValue(encodeValue(value))).toBe(value);
    }
  });

  it('accepts the value without padding', () => {
    fc.assert(
      fc.property(hostileText, (value) => {
        expect(decodeValue(encodeValue(value).replace(/=+$/, ''))).toBe(value);
      }),
    );
  });

  it('accepts the standard alphabet + and / as well as - and _', () => {
    fc.assert(
      fc.property(hostileText, (value) => {
        expect(decodeValue(Buffer.from(value).toString('base64'))).toBe(value);
      }),
    );
    expect(decodeValue('8J+UkQ==')).toBe('🔑');
    expect(decodeValue('Pz8/')).toBe('???');
    expect(decodeValue('Pz8_')).toBe('???');
  });

  it.each([
    ['a character outside both alphabets', 'czNj*mV0'],
    ['a percent-encoded character', 'czNjcmV0%3D'],
    ['a single leftover character', 'czNjc'],
    ['padding that does not complete the quantum', 'czNjcmV0='],
    ['three padding characters', 'cw==='],
    ['padding in the middle', 'cw==cw=='],
    ['a space', 'czNj cmV0'],
  ])('refuses %s with invalid_request', (_, encoded) => {
    const error = expectInvalid(() => decodeValue(encoded));
    expect(error.message).toMatch(/base64/);
  });

  it('refuses bytes that are not UTF-8', () => {
    const error = expectInvalid(() => decodeValue(Buffer.from([0xff, 0xfe, 0x80]).toString('base64url')));
    expect(error.message).toMatch(/UTF-8/);
  });

  it('never quotes the value it could not decode (it may be a password)', () => {
    const secret = 'hunter2-very-secret';
    expectInvalid(() => decodeValue(`${secret}!`), secret);
    expectInvalid(() => decodeValue(Buffer.from([0xc3, 0x28]).toString('base64url')), '\u00c3');
  });
});

describe('value lists', () => {
  it('round-trip lists of any length', () => {
    fc.assert(
      fc.property(fc.array(hostileText, { minLength: 1, maxLength: 12 }), (values) => {
        const segment = encodeValueList(values);
        expect(segment.split(';')).toHaveLength(values.length);
        expect(decodeValueList(segment, values.length, 'test')).toEqual(values);
      }),
    );
  });

  it('refuses a wrong count without quoting the values', () => {
    const segment = encodeValueList(['top-secret-a', 'top-secret-b']);
    const error = expectInvalid(() => decodeValueList(segment, 3, 'item'), 'top-secret');
    expect(error.message).toBe("Expected 3 item values separated by ';', received 2.");
    expect(error.message).not.toContain(segment);
  });
});

describe('item values', () => {
  const itemArb = fc.record(
    {
      label: hostileText,
      password: hostileText,
      description: hostileText,
      folderId: fc.integer({ min: 1, max: 2 ** 31 }),
      login: hostileText,
      email: hostileText,
      url: hostileText,
      tags: fc.oneof(hostileText, fc.array(fc.stringMatching(/^[a-z0-9-]{1,8}$/), { maxLength: 4 })),
      anyoneCanModify: fc.boolean(),
    },
    { requiredKeys: ['label', 'password', 'folderId'] },
  );

  it('round-trip every field of any item', () => {
    fc.assert(
      fc.property(itemArb, (item) => {
        const segment = encodeItemValues(item);
        expect(segment.split(';')).toHaveLength(9);
        const decoded = decodeItemValues(segment);
        expect(Object.keys(decoded)).toEqual([...ITEM_VALUE_NAMES]);
        const tags = typeof item.tags === 'string' ? item.tags : (item.tags ?? []).join(' ');
        expect(decoded).toEqual({
          label: item.label,
          password: item.password,
          description: item.description ?? '',
          folderId: String(item.folderId),
          login: item.login ?? '',
          email: item.email ?? '',
          url: item.url ?? '',
          tags,
          anyoneCanModify: item.anyoneCanModify ? '1' : '0',
        });
      }),
    );
  });

  it('pins the bytes of a full item and of a minimal one', () => {
    expect(
      encodeItemValues({
        label: 'db',
        password: 's3cret',
        description: 'desc',
        folderId: 12,
        login: 'alice',
        email: 'a@x.io',
        url: 'https://x.io/?a=1',
        tags: ['ops', 'db'],
        anyoneCanModify: true,
      }),
    ).toBe('ZGI=;czNjcmV0;ZGVzYw==;MTI=;YWxpY2U=;YUB4Lmlv;aHR0cHM6Ly94LmlvLz9hPTE=;b3BzIGRi;MQ==');
    expect(encodeItemValues({ label: 'db', password: 's3cret', folderId: 7, login: 'alice' })).toBe(
      'ZGI=;czNjcmV0;;Nw==;YWxpY2U=;;;;MA==',
    );
  });

  it('orders the values as the spec does', () => {
    expect(
      itemToValues({ label: 'L', password: 'P', folderId: 3, tags: 'a b', anyoneCanModify: false }),
    ).toEqual(['L', 'P', '', '3', '', '', '', 'a b', '0']);
  });

  it.each([
    ['eight values', 'ZGI=;czNjcmV0;;Nw==;YWxpY2U=;;;'],
    ['ten values', 'ZGI=;czNjcmV0;;Nw==;YWxpY2U=;;;;;'],
    ['one value', 'ZGI='],
  ])('refuses %s', (_, segment) => {
    expect(expectInvalid(() => decodeItemValues(segment)).message).toMatch(/Expected 9 item values/);
  });

  it('refuses a value that is not base64 without quoting the password', () => {
    expectInvalid(() => decodeItemValues('ZGI=;p4ss*word;;Nw==;;;;;'), 'p4ss*word');
  });
});

describe('folder values', () => {
  const folderValue = hostileText.filter((value) => !value.includes(';'));
  const folderArb = fc.oneof(
    fc.array(folderValue, { minLength: 5, maxLength: 5 }),
    fc.array(folderValue, { minLength: 3, maxLength: 3 }),
  );

  it('sends ONE base64url blob by default, with no raw ;', () => {
    expect(encodeFolderValues(['Top', '0', '0', '0', '0'])).toBe('VG9wOzA7MDswOzA=');
    expect(encodeFolderValues(['Team', '25', '3', '12', '1'])).toBe('VGVhbTsyNTszOzEyOzE=');
    expect(encodeFolderValues(['Team', '25', '3', '12', '1'], 'blob')).toBe(reference('Team;25;3;12;1'));
  });

  it('sends each value encoded on its own in the values form', () => {
    expect(encodeFolderValues(['Top', '0', '0', '0', '0'], 'values')).toBe('VG9w;MA==;MA==;MA==;MA==');
  });

  it('round-trips the blob form and the per-value form, and decodes both', () => {
    fc.assert(
      fc.property(folderArb, (values) => {
        const blob = encodeFolderValues(values, 'blob');
        expect(blob).not.toContain(';');
        expect(decodeFolderValues(blob, values.length)).toEqual(values);
        const perValue = encodeFolderValues(values, 'values');
        expect(decodeFolderValues(perValue, values.length)).toEqual(values);
      }),
    );
  });

  it('round-trips ; inside a title in the per-value form', () => {
    const values = ['a;b', '0', '0', '0', '0'];
    expect(decodeFolderValues(encodeFolderValues(values, 'values'), 5)).toEqual(values);
  });

  it('refuses a ; inside a value in the blob form', () => {
    expect(expectInvalid(() => encodeFolderValues(['a;b', '0', '0'])).message).toMatch(/cannot contain ';'/);
  });

  it('refuses a wrong count in both forms', () => {
    expectInvalid(() => decodeFolderValues(encodeFolderValues(['T', '0', '0']), 5));
    expectInvalid(() => decodeFolderValues(encodeFolderValues(['T', '0', '0'], 'values'), 5));
  });

  it('refuses a blob that is not base64', () => {
    expectInvalid(() => decodeFolderValues('VG9w*zA7MDswOzA', 5));
  });
});

describe('ids', () => {
  it('round-trip any positive safe integer and any id list', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: MAX_ID }), { minLength: 1, maxLength: 50 }), (ids) => {
        const segment = encodeIdList(ids);
        expect(segment).toBe(ids.join(';'));
        expect(decodeIdList(segment)).toEqual(ids);
        for (const id of ids) expect(decodeId(encodeId(id))).toBe(id);
      }),
    );
  });

  it('keeps duplicates and order', () => {
    expect(decodeIdList('3;1;3')).toEqual([3, 1, 3]);
    expect(encodeIdList([3, 1, 3])).toBe('3;1;3');
  });

  it.each([
    ['1.0'],
    ['+3'],
    ['-1'],
    ['0'],
    ['00'],
    ['99999999999999999'],
    ['9007199254740992'],
    [''],
    [' 1'],
    ['1e3'],
    ['0x10'],
    ['١'],
    [' 1'],
    ['1 '],
    ['+1'],
    ['01'],
    ['007'],
    ['1e3'],
    ['1\n'],
    ['\t1'],
  ])('decodeId refuses %j with invalid_request', (segment) => {
    expectInvalid(() => decodeId(segment));
    expect(parseId(segment)).toBeUndefined();
  });

  it('reads exactly the spellings encodeId writes', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (text) => {
        const id = parseId(text);
        if (id !== undefined) expect(encodeId(id)).toBe(text);
      }),
    );
    expect(parseId(String(MAX_ID))).toBe(MAX_ID);
    expect(decodeId('10')).toBe(10);
  });

  it('decodeIdValue reads ids inside values canonically and names the value', () => {
    expect(decodeIdValue('12', 'folder_id')).toBe(12);
    expect(decodeIdValue('0', 'parent_id', { allowZero: true })).toBe(0);
    for (const value of ['1 ', ' 1', '+1', '1.0', '01', '', '0']) {
      expect(() => decodeIdValue(value, 'folder_id')).toThrow(/Expected folder_id to be an id \(digits/);
    }
    expect(() => decodeIdValue('00', 'parent_id', { allowZero: true })).toThrow(/to be an id or 0/);
    try {
      decodeIdValue('1 ', 'folder_id');
    } catch (error) {
      expect((error as VaultError).code).toBe('invalid_request');
      expect((error as VaultError).message).toContain('"1 "');
    }
  });

  it('decodeIdList refuses an empty entry, a trailing ; and a bad id', () => {
    expectInvalid(() => decodeIdList(''));
    expectInvalid(() => decodeIdList('1;;2'));
    expectInvalid(() => decodeIdList('1;2;'));
    expectInvalid(() => decodeIdList('1;+3'));
  });

  it.each([[0], [-1], [1.5], [Number.NaN], [Number.POSITIVE_INFINITY], [MAX_ID + 1]])(
    'encodeId refuses %d',
    (id) => {
      expect(isValidId(id)).toBe(false);
      expectInvalid(() => encodeId(id));
    },
  );

  it('encodeIdList refuses an empty list and a list with one bad id', () => {
    expect(expectInvalid(() => encodeIdList([])).message).toMatch(/at least one id/);
    expectInvalid(() => encodeIdList([1, 0, 2]));
  });

  it('cuts a huge received id short in the message', () => {
    const error = expectInvalid(() => decodeId('9'.repeat(500)));
    expect(error.message.length).toBeLessThan(120);
  });
});

describe('raw segments', () => {
  const rawArb = fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: 30 })
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the refused characters.
    .filter((value) => !/[/\\?#\u0000-\u001f\u007f]/.test(value) && value !== '.' && value !== '..');

  it('round-trip any value a URL path can carry', () => {
    fc.assert(
      fc.property(rawArb, (value) => {
        const segment = encodeRawSegment(value, 'login');
        expect(segment).not.toMatch(/[/?#\s]/);
        expect(decodeRawSegment(segment, 'login')).toBe(value);
      }),
    );
  });

  it("keeps TeamPass's searchable characters and ; = as they are", () => {
    expect(encodeRawSegment("ab_C:9'-x", 'search string')).toBe("ab_C:9'-x");
    expect(encodeRawSegment('a;b=c', 'login')).toBe('a;b=c');
  });

  it('percent-encodes spaces, % and non-ASCII', () => {
    expect(encodeRawSegment('a b', 'login')).toBe('a%20b');
    expect(encodeRawSegment('100%', 'login')).toBe('100%25');
    expect(encodeRawSegment('é🔑', 'login')).toBe('%C3%A9%F0%9F%94%91');
  });

  it.each([
    ['empty', ''],
    ['a slash', 'a/b'],
    ['a backslash', 'a\\b'],
    ['a question mark', 'a?b'],
    ['a hash', 'a#b'],
    ['a newline', 'a\nb'],
    ['NUL', 'a\0b'],
    ['DEL', 'a\u007fb'],
    ['a dot segment', '.'],
    ['a double-dot segment', '..'],
  ])('refuses %s', (_, value) => {
    expectInvalid(() => encodeRawSegment(value, 'login'));
  });

  it('decode refuses malformed percent-encoding and an empty value', () => {
    expect(expectInvalid(() => decodeRawSegment('%E0%A4%A', 'login')).message).toMatch(/percent-encoding/);
    expectInvalid(() => decodeRawSegment('', 'login'));
  });
});
