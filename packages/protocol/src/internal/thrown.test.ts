import { describe, expect, it } from 'vitest';
import { innermost, thrownWords } from './thrown.ts';

describe('thrownWords', () => {
  it("gives a Node error's code, else its message", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(thrownWords(refused)).toBe('ECONNREFUSED');
    expect(thrownWords(new Error('socket hang up'))).toBe('socket hang up');
    expect(thrownWords('plain')).toBe('plain');
  });

  it("gives a DOMException's message, never its numeric code", () => {
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    const abort = new DOMException('This operation was aborted', 'AbortError');
    expect(typeof (timeout as { code: unknown }).code).toBe('number');
    expect(thrownWords(timeout)).toBe('The operation was aborted due to timeout');
    expect(thrownWords(abort)).toBe('This operation was aborted');
  });
});

describe('innermost', () => {
  it('follows causes down, at most five deep', () => {
    const root = new Error('root');
    const chain = new TypeError('fetch failed', { cause: new Error('middle', { cause: root }) });
    expect(innermost(chain)).toBe(root);
    let deep: Error = new Error('7');
    for (let i = 6; i >= 0; i--) deep = new Error(String(i), { cause: deep });
    expect((innermost(deep) as Error).message).toBe('5');
  });
});
