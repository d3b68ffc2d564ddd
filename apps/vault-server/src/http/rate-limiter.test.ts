import { afterEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter } from './rate-limiter.ts';

describe('RateLimiter', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('allows the limit per key and window, then refuses until the window ends', () => {
    vi.useFakeTimers({ now: 0 });
    const limiter = new RateLimiter(3, 1_000);
    expect([1, 2, 3, 4].map(() => limiter.hit('a'))).toEqual([true, true, true, false]);
    expect(limiter.blocked('a')).toBe(true);
    expect(limiter.hit('b')).toBe(true);
    expect(limiter.retryAfter('a')).toBe(1);
    vi.setSystemTime(1_001);
    expect(limiter.blocked('a')).toBe(false);
    expect(limiter.hit('a')).toBe(true);
  });
});
