import { describe, expect, it } from 'vitest';
import { createViewOwners } from './view-owners.ts';

describe('createViewOwners', () => {
  it('gives back the user a tag was made for, from any instance with the same secret', () => {
    const tag = createViewOwners('xoxb-secret').tag('UALICE');
    expect(tag.length).toBeLessThanOrEqual(255);
    expect(createViewOwners('xoxb-secret').ownerOf(tag)).toBe('UALICE');
    expect(createViewOwners('xoxb-secret').tag('UALICE')).not.toBe(tag);
  });

  it('owns nothing for a tag of another secret, a tag altered to name someone else, or no tag', () => {
    const owners = createViewOwners('xoxb-secret');
    const tag = owners.tag('UALICE');
    expect(createViewOwners('xoxb-other').ownerOf(tag)).toBeUndefined();
    expect(owners.ownerOf(tag.replace('UALICE', 'UBOBBY'))).toBeUndefined();
    for (const other of [undefined, null, '', 'VSEARCH1', 42, `${tag}x`])
      expect(owners.ownerOf(other)).toBeUndefined();
  });
});
