import { describe, expect, it } from 'vitest';
import { parseChange } from './changes.ts';

describe('parseChange', () => {
  it('reads what the triggers send', () => {
    expect(parseChange('access')).toEqual({ kind: 'access' });
    expect(parseChange('items:*')).toEqual({ kind: 'items', ids: 'all' });
    expect(parseChange('items:7')).toEqual({ kind: 'items', ids: [7] });
    expect(parseChange('items:1,20,300')).toEqual({ kind: 'items', ids: [1, 20, 300] });
  });

  it('refuses anything else, so that the listener forgets everything rather than too little', () => {
    for (const payload of [
      undefined,
      '',
      'items:',
      'items:1,,2',
      'items:-1',
      'items:0',
      'items:1.5',
      'items: 1',
      'items:99999999999999999999',
      'items:١',
      'ACCESS',
      'folders',
      `items:${'9,'.repeat(5000)}`,
    ]) {
      expect(parseChange(payload)).toBeUndefined();
    }
  });
});
