import { describe, expect, it } from 'vitest';
import { requireItemRef, toItemRef } from './item-ref.ts';

describe('toItemRef', () => {
  it('reads a tree node', () => {
    const node = {
      kind: 'item',
      connection: 'alice',
      item: { id: 7, folderId: 3, label: 'db', otp: true },
    };
    expect(toItemRef(node)).toEqual({ connection: 'alice', itemId: 7, folderId: 3, label: 'db', otp: true });
  });

  it("reads a caller's { connection, itemId }, dropping an otp that is not a flag", () => {
    expect(toItemRef({ connection: 'bob', itemId: 9, otp: 'yes' })).toEqual({
      connection: 'bob',
      itemId: 9,
      folderId: undefined,
      label: undefined,
      otp: undefined,
    });
  });

  it.each([
    undefined,
    null,
    'alice/7',
    { connection: 'alice' },
    { connection: 'alice', itemId: 0 },
    { connection: 'alice', itemId: -1 },
    { connection: 'alice', itemId: 1.5 },
    { connection: 7, itemId: 7 },
    { kind: 'folder', connection: 'alice' },
  ])('names no item for %j', (target) => {
    expect(toItemRef(target)).toBeUndefined();
  });

  it('requireItemRef says what to do when no item is named', () => {
    expect(() => requireItemRef({})).toThrow('choose an item in the Vaultline view or in search first.');
  });
});
