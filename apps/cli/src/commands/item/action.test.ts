import { describe, expect, it } from 'vitest';
import { editWarning } from './action.ts';

describe('editWarning', () => {
  it('says what the vault does with what an edit leaves out, as its capability says', () => {
    // TeamPass 2 keeps the tags (it only adds) and turns "anyone can modify" off.
    expect(editWarning('added', {})).toMatch(/turns it off unless --anyone-can-modify.*keeps its tags/);
    expect(editWarning('added', {})).not.toMatch(/without tags/);
    expect(editWarning('added', { anyoneCanModify: true })).toBeUndefined();
    expect(editWarning('replaced', {})).toMatch(/leaves the item without tags/);
    expect(editWarning('replaced', { tags: 'a' })).toBeUndefined();
    expect(editWarning('kept', {})).toBeUndefined();
  });
});
