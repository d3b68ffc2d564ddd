import type { Folder } from '@vaultline/protocol';
import { describe, expect, it } from 'vitest';
import { folderIdsOfPaths, scopeOf } from './upstream-scope.ts';

const folder = (id: number, title: string, parentId: number): Folder =>
  ({ id, title, parentId, level: 0, accessType: 'W', personal: false, complexityLevel: 0 }) as Folder;

const TREE = [folder(1, 'Prod', 0), folder(2, 'DB', 1), folder(3, 'Deep', 2), folder(4, 'Other', 0)];

describe('folderIdsOfPaths', () => {
  it('finds folders by their titles from the root down, spaces around titles ignored', () => {
    expect(folderIdsOfPaths(TREE, ['Prod / DB'], true)).toEqual([2]);
    expect(folderIdsOfPaths(TREE, ['Other', 'Prod/DB/Deep'], true)).toEqual([4, 3]);
  });

  it('refuses a path that names no folder when asked to, and reaches nothing otherwise', () => {
    expect(() => folderIdsOfPaths(TREE, ['Prod/Nope'], true)).toThrow(/No folder at the path "Prod\/Nope"/);
    expect(folderIdsOfPaths(TREE, ['Prod/Nope'], false)).toEqual([]);
  });
});

describe('scopeOf', () => {
  it('is every folder without ids, the ids alone, or the ids with their subtrees', async () => {
    const tree = async () => TREE;
    expect(await scopeOf(undefined, false, tree)).toBe('all');
    expect([...(await scopeOf([1], false, tree))]).toEqual([1]);
    expect([...(await scopeOf([1], true, tree))].sort()).toEqual([1, 2, 3]);
  });
});
