import { describe, expect, it } from 'vitest';
import { createCachedProbe } from './cached-probe.ts';

/** A question whose answers are given one by one, each when the test releases it. */
function question(answers: string[]) {
  let asked = 0;
  const waiting: Array<() => void> = [];
  return {
    get asked() {
      return asked;
    },
    ask: () => {
      const answer = answers[asked++]!;
      return new Promise<string>((resolve) => waiting.push(() => resolve(answer)));
    },
    release: () => waiting.shift()?.(),
  };
}

describe('createCachedProbe', () => {
  it('shares one request between concurrent callers, and keeps a conclusive answer', async () => {
    const q = question(['vaultline']);
    const probe = createCachedProbe({ ask: q.ask, conclusive: (a) => a !== 'unknown', now: () => 0 });
    const first = probe.get();
    const second = probe.get();
    expect(probe.known()).toBeUndefined();
    q.release();
    expect(await Promise.all([first, second])).toEqual(['vaultline', 'vaultline']);
    expect(q.asked).toBe(1);
    expect(probe.known()).toBe('vaultline');
    expect(await probe.get()).toBe('vaultline');
    expect(q.asked).toBe(1);
  });

  it('uses an inconclusive answer for a while, then asks again', async () => {
    let clock = 0;
    const q = question(['unknown', 'teampass3', 'later']);
    const probe = createCachedProbe({
      ask: q.ask,
      conclusive: (a) => a !== 'unknown',
      retryAfterMs: 1000,
      now: () => clock,
    });
    const first = probe.get();
    q.release();
    expect(await first).toBe('unknown');
    clock = 999;
    expect(probe.known()).toBe('unknown');
    expect(await probe.get()).toBe('unknown');
    clock = 1000;
    expect(probe.known()).toBeUndefined();
    const again = probe.get();
    q.release();
    expect(await again).toBe('teampass3');
    clock = 1e12;
    expect(await probe.get()).toBe('teampass3');
    expect(q.asked).toBe(2);
  });

  it('asks again on refresh, starts from a known answer, and keeps what later calls learn', async () => {
    const q = question(['fresh']);
    const probe = createCachedProbe({ ask: q.ask, conclusive: () => true, known: 'stored' });
    expect(probe.known()).toBe('stored');
    expect(await probe.get()).toBe('stored');
    expect(q.asked).toBe(0);
    probe.update((answer) => `${answer}, no files`);
    expect(await probe.get()).toBe('stored, no files');
    const refreshed = probe.get(true);
    q.release();
    expect(await refreshed).toBe('fresh');
    expect(q.asked).toBe(1);
  });
});
