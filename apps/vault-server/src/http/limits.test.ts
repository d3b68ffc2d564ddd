import { openPglite } from '@vaultline/store';
import { describe, expect, it } from 'vitest';
import { toApiError } from './error-mapping.ts';
import { checkRequestLimit, createLimiters } from './limits.ts';

describe('limits', () => {
  it('counts per address in memory on PGlite and refuses over the limit with Retry-After', async () => {
    const db = await openPglite();
    try {
      const limiters = createLimiters(db, { rateLimitPerMinute: 3, failedKeyLimit: 2 });
      for (let i = 0; i < 3; i++) await checkRequestLimit(limiters.requests, 'a');
      const refused = await checkRequestLimit(limiters.requests, 'a').then(
        () => undefined,
        (error: unknown) => toApiError(error),
      );
      expect(refused).toMatchObject({ status: 429, body: { code: 'rate_limited' } });
      const retryAfter = Number(refused?.headers?.['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      await expect(checkRequestLimit(limiters.requests, 'b')).resolves.toBeUndefined();

      expect((await limiters.failedKeys.hit('a')).allowed).toBe(true);
      expect((await limiters.failedKeys.hit('a')).allowed).toBe(true);
      const locked = await limiters.failedKeys.hit('a');
      expect(locked.allowed).toBe(false);
      expect(locked.retryAfterSeconds).toBeGreaterThan(60);
      expect((await limiters.failedKeys.hit('b')).allowed).toBe(true);
    } finally {
      await db.close();
    }
  });
});
