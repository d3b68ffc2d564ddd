import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findReferences } from './find-references.ts';
import {
  escapeReferenceSegment,
  fieldText,
  formatReference,
  isReference,
  MAX_REFERENCE_DEPTH,
  MAX_REFERENCE_LENGTH,
  OTP_FIELD,
  parseReference,
  REFERENCE_FIELDS,
  type Reference,
  referenceToItem,
} from './reference.ts';
import { isReferenceError, type ReferenceErrorCode, VaultReferenceError } from './reference-error.ts';

/** Any non-empty, well-formed text: graphemes, any code point, and the characters that must be escaped. */
const name = fc
  .oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
    fc.string({
      unit: fc.constantFrom(
        '/',
        '%',
        ' ',
        '@',
        ':',
        '.',
        '..',
        '%2F',
        '%25',
        'é',
        '😀',
        '\u0000',
        '\n',
        '+',
        '#',
        '?',
      ),
      minLength: 1,
      maxLength: 12,
    }),
  )
  .filter((text) => text.isWellFormed());

const field = fc.oneof(
  fc.constantFrom(...REFERENCE_FIELDS, OTP_FIELD),
  name.map((file) => ({ file })),
);
const connection = fc.option(name, { nil: undefined });

const idReference: fc.Arbitrary<Reference> = fc
  .record({ id: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), field, connection })
  .map(({ id, field, connection }) =>
    connection === undefined ? { kind: 'id', id, field } : { kind: 'id', id, field, connection },
  );
const pathReference: fc.Arbitrary<Reference> = fc
  .record({ folders: fc.array(name, { minLength: 1, maxLength: 5 }), label: name, field, connection })
  .map(({ folders, label, field, connection }) =>
    connection === undefined
      ? { kind: 'path', folders, label, field }
      : { kind: 'path', folders, label, field, connection },
  );
const reference = fc.oneof(idReference, pathReference);

function codeOf(action: () => unknown): ReferenceErrorCode | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    if (error instanceof VaultReferenceError) return error.code;
    throw error;
  }
}

describe('formatReference and parseReference', () => {
  it('round-trips any reference: format → parse gives it back', () => {
    fc.assert(
      fc.property(reference, (ref) => {
        expect(parseReference(formatReference(ref))).toEqual(ref);
      }),
      { numRuns: 2000 },
    );
  });

  it('writes only unreserved characters, %XX escapes and the separators', () => {
    fc.assert(
      fc.property(reference, (ref) => {
        const text = formatReference(ref);
        expect(text).toMatch(/^vaultline:\/\/[A-Za-z0-9\-._~%/:@]+$/);
        expect(text.split('/').every((segment) => !/^\.+$/.test(segment))).toBe(true);
      }),
    );
  });

  it('is found whole, at its place, in any surrounding text', () => {
    fc.assert(
      fc.property(reference, fc.constantFrom(' ', '"', "'", '\n', '=', '(', ',', '`'), (ref, around) => {
        const text = formatReference(ref);
        const closing = around === '(' ? ')' : around;
        const doc = `KEY${around}${text}${closing} tail`;
        const [found, ...rest] = findReferences(doc);
        expect(rest).toEqual([]);
        expect(found?.reference).toEqual(ref);
        expect(doc.slice(found!.start, found!.end)).toBe(text);
      }),
    );
  });

  it('never throws anything but a VaultReferenceError on any input', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 80 }),
          fc.string({ unit: 'binary', maxLength: 80 }).map((tail) => `vaultline://${tail}`),
        ),
        (text) => {
          let parsed: Reference;
          try {
            parsed = parseReference(text);
          } catch (error) {
            expect(error).toBeInstanceOf(VaultReferenceError);
            return;
          }
          // Whatever parses formats back, and means the same.
          expect(parseReference(formatReference(parsed))).toEqual(parsed);
        },
      ),
    );
  });

  it.each([
    ['vaultline://42/password', { kind: 'id', id: 42, field: 'password' }],
    ['vaultline://7/login', { kind: 'id', id: 7, field: 'login' }],
    ['vaultline://work@42/url', { kind: 'id', id: 42, field: 'url', connection: 'work' }],
    [
      'vaultline://Engineering/Databases/prod%20db/password',
      { kind: 'path', folders: ['Engineering', 'Databases'], label: 'prod db', field: 'password' },
    ],
    [
      'vaultline://Engineering/Databases/prod db/password',
      { kind: 'path', folders: ['Engineering', 'Databases'], label: 'prod db', field: 'password' },
    ],
    [
      'vaultline://Caf%C3%A9/a%2Fb%25c/description',
      { kind: 'path', folders: ['Café'], label: 'a/b%c', field: 'description' },
    ],
    ['vaultline://Café/db/email', { kind: 'path', folders: ['Café'], label: 'db', field: 'email' }],
    ['vaultline://42/file:id_rsa.pub', { kind: 'id', id: 42, field: { file: 'id_rsa.pub' } }],
    ['vaultline://42/file:my%20key%2F1', { kind: 'id', id: 42, field: { file: 'my key/1' } }],
    ['vaultline://Ops/42/label', { kind: 'path', folders: ['Ops'], label: '42', field: 'label' }],
    [
      'vaultline://home%40work@Team/db/password',
      { kind: 'path', folders: ['Team'], label: 'db', field: 'password', connection: 'home@work' },
    ],
    ['vaultline://%2E%2E/db/password', { kind: 'path', folders: ['..'], label: 'db', field: 'password' }],
  ])('parses %s', (text, expected) => {
    expect(parseReference(text)).toEqual(expected);
  });

  it.each([
    [{ kind: 'id', id: 42, field: 'password' }, 'vaultline://42/password'],
    [
      { kind: 'path', folders: ['Engineering', 'Databases'], label: 'prod db', field: 'password' },
      'vaultline://Engineering/Databases/prod%20db/password',
    ],
    [
      { kind: 'path', folders: ['Café'], label: 'a/b%c', field: 'url' },
      'vaultline://Caf%C3%A9/a%2Fb%25c/url',
    ],
    [{ kind: 'path', folders: ['.'], label: '..', field: 'login' }, 'vaultline://%2E/%2E%2E/login'],
    [{ kind: 'id', id: 1, field: { file: 'ключ.pem' } }, 'vaultline://1/file:%D0%BA%D0%BB%D1%8E%D1%87.pem'],
    [{ kind: 'id', id: 3, field: 'email', connection: 'a b' }, 'vaultline://a%20b@3/email'],
  ] satisfies [Reference, string][])('formats %o as %s', (ref, text) => {
    expect(formatReference(ref)).toBe(text);
  });

  it.each([
    ['', 'invalid_reference'],
    ['op://vault/item/password', 'invalid_reference'],
    ['vaultline://', 'invalid_reference'],
    ['vaultline://42', 'invalid_reference'],
    ['vaultline://42/', 'invalid_reference'],
    ['vaultline://abc/password', 'invalid_reference'],
    ['vaultline://0/password', 'invalid_reference'],
    ['vaultline://-1/password', 'invalid_reference'],
    ['vaultline://1.0/password', 'invalid_reference'],
    ['vaultline://99999999999999999/password', 'invalid_reference'],
    ['vaultline://a//b/password', 'invalid_reference'],
    ['vaultline://a/b%2/password', 'invalid_reference'],
    ['vaultline://a/b%zz/password', 'invalid_reference'],
    ['vaultline://a/b%FF/password', 'invalid_reference'],
    ['vaultline://a/b\u0000c/password', 'invalid_reference'],
    ['vaultline://a/b\nc/password', 'invalid_reference'],
    ['vaultline://@42/password', 'invalid_reference'],
    ['vaultline://42/file:', 'invalid_reference'],
    ['vaultline://a/\ud800/password', 'invalid_reference'],
    ['vaultline://42/pw', 'unknown_field'],
    ['vaultline://42/Password', 'unknown_field'],
    ['vaultline://a/b/secret', 'unknown_field'],
    [`vaultline://${'a/'.repeat(MAX_REFERENCE_DEPTH + 1)}b/password`, 'invalid_reference'],
    [`vaultline://a/${'x'.repeat(MAX_REFERENCE_LENGTH)}/password`, 'invalid_reference'],
  ])('rejects %j with %s', (text, code) => {
    expect(codeOf(() => parseReference(text))).toBe(code);
  });

  it('quotes at most a short excerpt of hostile input in its message', () => {
    const text = `vaultline://a/${'<script>'.repeat(500)}/nope`;
    try {
      parseReference(text);
      expect.unreachable();
    } catch (error) {
      expect(isReferenceError(error, 'invalid_reference', 'unknown_field')).toBe(true);
      expect((error as Error).message.length).toBeLessThan(300);
      expect((error as VaultReferenceError).reference.length).toBeLessThan(80);
    }
  });

  it.each([
    [{ kind: 'id', id: 0, field: 'password' }, 'invalid_reference'],
    [{ kind: 'id', id: 1.5, field: 'password' }, 'invalid_reference'],
    [{ kind: 'path', folders: [], label: 'x', field: 'password' }, 'invalid_reference'],
    [{ kind: 'path', folders: [''], label: 'x', field: 'password' }, 'invalid_reference'],
    [{ kind: 'path', folders: ['a'], label: '', field: 'password' }, 'invalid_reference'],
    [{ kind: 'path', folders: ['a'], label: '\ud800', field: 'password' }, 'invalid_reference'],
    [{ kind: 'id', id: 1, field: { file: '' } }, 'invalid_reference'],
    [{ kind: 'id', id: 1, field: 'pw' as 'password' }, 'unknown_field'],
    [{ kind: 'id', id: 1, field: 'password', connection: '' }, 'invalid_reference'],
    [
      { kind: 'path', folders: ['a'], label: 'x'.repeat(MAX_REFERENCE_LENGTH), field: 'password' },
      'invalid_reference',
    ],
  ] satisfies [Reference, ReferenceErrorCode][])('refuses to format %o (%s)', (ref, code) => {
    expect(codeOf(() => formatReference(ref))).toBe(code);
  });
});

describe('the otp field', () => {
  it('names the current one-time code, by id or by path', () => {
    expect(parseReference('vaultline://42/otp')).toEqual({ kind: 'id', id: 42, field: 'otp' });
    expect(parseReference('vaultline://work@Ops/ci%20bot/otp')).toEqual({
      kind: 'path',
      folders: ['Ops'],
      label: 'ci bot',
      field: 'otp',
      connection: 'work',
    });
    expect(formatReference({ kind: 'id', id: 7, field: 'otp' })).toBe('vaultline://7/otp');
    expect(codeOf(() => parseReference('vaultline://42/OTP'))).toBe('unknown_field');
  });
});

describe('findReferences', () => {
  it('finds references in an env file with their ranges', () => {
    const text = [
      'DB_HOST=db.internal',
      'DB_PASS=vaultline://42/password',
      'DB_USER="vaultline://Engineering/Databases/prod%20db/login"',
      'API=vaultline://work@7/file:token.txt # the token',
    ].join('\n');
    const found = findReferences(text);
    expect(found.map((f) => f.text)).toEqual([
      'vaultline://42/password',
      'vaultline://Engineering/Databases/prod%20db/login',
      'vaultline://work@7/file:token.txt',
    ]);
    for (const f of found) expect(text.slice(f.start, f.end)).toBe(f.text);
    expect(found.every((f) => f.error === undefined)).toBe(true);
  });

  it('leaves out a full stop or colon that ends a sentence', () => {
    const [found] = findReferences('Set it to vaultline://42/password. Then run.');
    expect(found?.text).toBe('vaultline://42/password');
    expect(found?.reference).toEqual({ kind: 'id', id: 42, field: 'password' });
  });

  it('reads a reference inside a URL as ending before the @ or : that follows its field', () => {
    const text = 'DATABASE_URL=postgres://app:vaultline://Dev/db/password@db.internal:5432/app';
    const [found] = findReferences(text);
    expect(found?.text).toBe('vaultline://Dev/db/password');
    expect(found?.reference).toEqual({ kind: 'path', folders: ['Dev'], label: 'db', field: 'password' });
    expect(findReferences('x=vaultline://42/password:extra')[0]?.text).toBe('vaultline://42/password');
    // A typo is not cut at a /: it is reported whole.
    const [typo] = findReferences('vaultline://a/b/label/typo');
    expect(typo?.error?.code).toBe('unknown_field');
    expect(typo?.text).toBe('vaultline://a/b/label/typo');
  });

  it('reports references that do not parse, with their error and range', () => {
    const [bad, good] = findReferences('A=vaultline://42/pw\nB=vaultline://abc/password vaultline://1/url');
    expect(bad?.error?.code).toBe('unknown_field');
    expect(bad?.reference).toBeUndefined();
    expect(bad?.start).toBe(2);
    expect(good?.error?.code).toBe('invalid_reference');
    expect(findReferences('vaultline://1/url').length).toBe(1);
  });

  it('finds hand-written non-ASCII names but stops at quotes and spaces', () => {
    const [found] = findReferences('x = “vaultline://Café/ключ/password”');
    expect(found?.reference).toEqual({ kind: 'path', folders: ['Café'], label: 'ключ', field: 'password' });
  });

  it('ignores a scheme glued to another word and text without references', () => {
    expect(findReferences('myvaultline://42/password')).toEqual([]);
    expect(findReferences('no references here, vaultline: none')).toEqual([]);
    expect(findReferences('')).toEqual([]);
  });

  it('scans a large file quickly and finds every reference', () => {
    const lines = Array.from({ length: 10_000 }, (_, i) =>
      i % 100 === 0 ? `KEY_${i}=vaultline://${i + 1}/password` : `KEY_${i}=value-${i}`,
    );
    const started = performance.now();
    const found = findReferences(lines.join('\n'));
    const elapsed = performance.now() - started;
    expect(found).toHaveLength(100);
    // Generous: a linear scan of 10,000 lines takes a few ms.
    expect(elapsed).toBeLessThan(2000);
  });
});

describe('helpers', () => {
  it('builds references to items in either form', () => {
    const item = { id: 9, label: 'prod db', path: ['Engineering', 'Databases'] };
    expect(formatReference(referenceToItem(item, 'password'))).toBe('vaultline://9/password');
    expect(formatReference(referenceToItem(item, 'login', { form: 'path', connection: 'work' }))).toBe(
      'vaultline://work@Engineering/Databases/prod%20db/login',
    );
    expect(referenceToItem({ ...item, path: [] }, 'url', { form: 'path' })).toEqual({
      kind: 'id',
      id: 9,
      field: 'url',
    });
  });

  it('escapes segments, tells references apart and writes fields', () => {
    expect(escapeReferenceSegment('a b/c%d')).toBe('a%20b%2Fc%25d');
    expect(escapeReferenceSegment('...')).toBe('%2E%2E%2E');
    expect(isReference('vaultline://1/url')).toBe(true);
    expect(isReference('https://x')).toBe(false);
    expect(fieldText({ file: 'a b' })).toBe('file:a%20b');
    expect(fieldText('email')).toBe('email');
  });

  it('serialises errors without a stack', () => {
    const error = new VaultReferenceError('ambiguous', 'vaultline://a/b/password', 'two', {
      candidates: [1, 2],
    });
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: 'VaultReferenceError',
      code: 'ambiguous',
      reference: 'vaultline://a/b/password',
      message: 'two',
      candidates: [1, 2],
    });
  });
});
