import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { openPglite } from '../db/open-pglite.ts';
import type { AppEnv } from './app-env.ts';
import { INTERNAL_ERROR, toApiError } from './error-mapping.ts';
import { createLimiters, requestLimit } from './limits.ts';

describe('limits', () => {
  it('counts per address in memory on PGlite and refuses over the limit with Retry-After', async () => {
    const db = await openPglite(undefined);
    try {
      const limiters = await createLimiters(db, { rateLimitPerMinute: 3, failedKeyLimit: 2 });
      const app = new Hono<AppEnv>();
      app.onError((error, c) => {
        const mapped = toApiError(error) ?? INTERNAL_ERROR;
        return c.json(mapped.body, mapped.status as 400);
      });
      app.use('*', async (c, next) => {
        c.set('address', c.req.header('x-test-address') ?? 'a');
        await next();
      });
      app.use('*', requestLimit(limiters.requests));
      app.get('/', (c) => c.text('ok'));
      const from = (address: string) => app.request('/', { headers: { 'x-test-address': address } });
      for (let i = 0; i < 3; i++) expect((await from('a')).status).toBe(200);
      const refused = await from('a');
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ code: 'rate_limited' });
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect((await from('b')).status).toBe(200);

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
