import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VaultError } from './errors.ts';
import {
  COMPLEXITY_LEVELS,
  type EncodeContext,
  folderCreateSegment,
  folderUpdateSegment,
  idListSegment,
  idSegment,
  itemSegment,
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
