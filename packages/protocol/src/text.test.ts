import { describe, expect, it } from 'vitest';
import { foldLabel } from './text.ts';

describe('foldLabel', () => {
  it.each([
    ['  Café  ', 'cafe'],
    ['POSTGRES prod', 'postgres prod'],
    ['ﬁle', 'file'],
    ['Ünïcödé', 'unicode'],
    ['🔑 key', '🔑 key'],
    ['', ''],
  ])('%j → %j', (label, folded) => {
    expect(foldLabel(label)).toBe(folded);
  });
});
