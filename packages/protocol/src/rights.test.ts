import { describe, expect, it } from 'vitest';
import {
  ACCESS_TYPES,
  type AccessType,
  describeRight,
  foldApiPermissions,
  parseRight,
  permissionsOf,
  RIGHTS,
  rightOf,
  unionOfRights,
} from './rights.ts';

// The table, row by row, as TeamPass's roles screen defines it. Written out here on purpose: this is
// the one place a reader checks the meanings against TeamPass.
const EXPECTED: ReadonlyArray<[AccessType, { read: boolean; add: boolean; edit: boolean; delete: boolean }]> =
  [
    ['W', { read: true, add: true, edit: true, delete: true }],
    ['ND', { read: true, add: true, edit: true, delete: false }],
    ['NE', { read: true, add: true, edit: false, delete: true }],
    ['NDNE', { read: true, add: true, edit: false, delete: false }],
    ['R', { read: true, add: false, edit: false, delete: false }],
    ['none', { read: false, add: false, edit: false, delete: false }],
  ];

describe('RIGHTS', () => {
  it.each(EXPECTED)('%s allows %o', (right, allowed) => {
    const { read, add, edit, delete: del } = RIGHTS[right];
    expect({ read, add, edit, delete: del }).toEqual(allowed);
    expect(RIGHTS[right].code).toBe(right);
  });

  it('has a row for every right and nothing else', () => {
    expect(Object.keys(RIGHTS).sort()).toEqual([...ACCESS_TYPES, 'none'].sort());
  });

  it('gives each right its own words', () => {
    expect(describeRight('R')).toBe('read only');
    expect(describeRight('ND')).toBe('edit, no delete');
    expect(describeRight(undefined)).toBe('no access');
    expect(new Set(Object.values(RIGHTS).map((r) => r.words)).size).toBe(Object.keys(RIGHTS).length);
  });

  it('maps each row back to its right', () => {
    for (const [right] of EXPECTED) expect(rightOf(permissionsOf(right))).toBe(right);
  });
});

describe('parseRight', () => {
  it.each([
    ['W', 'W'],
    ['ND', 'ND'],
    ['NE', 'NE'],
    ['NDNE', 'NDNE'],
    ['NEND', 'NDNE'],
    ['R', 'R'],
    ['r', 'none'],
    [' W', 'none'],
    ['', 'none'],
    ['WRITE', 'none'],
    [null, 'none'],
    [3, 'none'],
  ] as const)('%j → %s', (value, right) => {
    expect(parseRight(value)).toBe(right);
  });
});

describe('unionOfRights', () => {
  it.each([
    [[], 'none'],
    [['none'], 'none'],
    [['R'], 'R'],
    [['R', 'NDNE'], 'NDNE'],
    [['ND', 'NE'], 'W'],
    [['NDNE', 'NE'], 'NE'],
    [['NDNE', 'ND'], 'ND'],
    [['R', 'W'], 'W'],
    [['none', 'R', undefined], 'R'],
  ] as const)('%j → %s', (rights, union) => {
    expect(unionOfRights(rights)).toBe(union);
  });

  it('allows exactly what any of its parts allows, for every pair', () => {
    const all = [...ACCESS_TYPES, 'none'] as const;
    for (const a of all) {
      for (const b of all) {
        const union = permissionsOf(unionOfRights([a, b]));
        for (const op of ['read', 'add', 'edit', 'delete'] as const) {
          expect(union[op], `${a} ∪ ${b}: ${op}`).toBe(permissionsOf(a)[op] || permissionsOf(b)[op]);
        }
      }
    }
  });
});

describe('foldApiPermissions', () => {
  const ALL = { create: true, read: true, update: true, delete: true };

  it.each([
    // right, flag off, folded
    ['W', undefined, 'W'],
    ['W', 'delete', 'ND'],
    ['W', 'update', 'NE'],
    ['W', 'create', 'R'],
    ['W', 'read', 'none'],
    ['ND', 'delete', 'ND'],
    ['ND', 'update', 'NDNE'],
    ['ND', 'create', 'R'],
    ['NE', 'delete', 'NDNE'],
    ['NE', 'update', 'NE'],
    ['NE', 'create', 'R'],
    ['NDNE', 'delete', 'NDNE'],
    ['NDNE', 'create', 'R'],
    ['R', 'create', 'R'],
    ['R', 'read', 'none'],
    ['none', undefined, 'none'],
  ] as const)('%s with %s off → %s', (right, off, folded) => {
    const api = off === undefined ? ALL : { ...ALL, [off]: false };
    expect(foldApiPermissions(right, api)).toBe(folded);
  });

  it('never allows what the right or the flags forbid, and keeps what both allow where the table can', () => {
    const flagSets = Array.from({ length: 16 }, (_, bits) => ({
      create: (bits & 1) !== 0,
      read: (bits & 2) !== 0,
      update: (bits & 4) !== 0,
      delete: (bits & 8) !== 0,
    }));
    for (const right of [...ACCESS_TYPES, 'none'] as const) {
      for (const api of flagSets) {
        const folded = permissionsOf(foldApiPermissions(right, api));
        const granted = permissionsOf(right);
        const label = `${right} ${JSON.stringify(api)}`;
        expect(!folded.read || (granted.read && api.read), label).toBe(true);
        expect(!folded.add || (granted.add && api.create), label).toBe(true);
        expect(!folded.edit || (granted.edit && api.update), label).toBe(true);
        expect(!folded.delete || (granted.delete && api.delete), label).toBe(true);
        // Reading survives whenever both allow it.
        expect(folded.read, label).toBe(granted.read && api.read);
      }
    }
  });
});
