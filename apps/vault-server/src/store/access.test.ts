import type { AccessType } from '@vaultline/protocol';
import { describe, expect, it } from 'vitest';
import { capabilitiesOf, mostPermissive } from './access.ts';

describe('mostPermissive', () => {
  it.each([
    [undefined, 'R', 'R'],
    ['R', 'W', 'W'],
    ['ND', 'NE', 'W'],
    ['NE', 'ND', 'W'],
    ['R', 'NDNE', 'NDNE'],
    ['NDNE', 'ND', 'ND'],
    ['NDNE', 'NE', 'NE'],
    ['R', 'R', 'R'],
    ['none', 'R', 'R'],
    ['W', 'none', 'W'],
  ] as [AccessType | undefined, AccessType, AccessType][])('%s with %s gives %s', (a, b, expected) => {
    expect(mostPermissive(a, b)).toBe(expected);
  });
});

describe('capabilitiesOf', () => {
  it('grants nothing without a right', () => {
    expect(capabilitiesOf(undefined)).toEqual({ read: false, create: false, edit: false, delete: false });
    expect(capabilitiesOf('none')).toEqual({ read: false, create: false, edit: false, delete: false });
  });
});
