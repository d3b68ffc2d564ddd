import { describe, expect, it } from 'vitest';
import { EXIT } from './exit-codes.ts';

describe('EXIT', () => {
  it('gives every outcome its own code, with the shell meanings of 126, 127 and 128+N', () => {
    expect(new Set(Object.values(EXIT)).size).toBe(Object.keys(EXIT).length);
    expect(EXIT).toMatchObject({
      ok: 0,
      error: 1,
      usage: 2,
      cannotExecute: 126,
      notFound: 127,
      signalBase: 128,
    });
  });
});
