import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import type { AppEnv } from './app-env.ts';
import { requestLog } from './request-log.ts';

describe('requestLog', () => {
  it('logs one line per request without the URL, and answers 414 past the URL limit', async () => {
    const lines: string[] = [];
    const app = new Hono<AppEnv>();
    app.use('*', requestLog(createLogger('info', { write: (line) => lines.push(line) }), 1_024));
    app.get('/*', (c) => {
      c.set('operation', 'read/items');
      return c.text('ok');
    });
    expect((await app.request('/read/items/1?apikey=vlk_secret-in-url')).status).toBe(200);
    const long = await app.request(`/x?apikey=${'a'.repeat(2_000)}`);
    expect(long.status).toBe(414);
    expect(await long.json()).toMatchObject({ code: 'too_large' });
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged.map((line) => [line.op, line.status])).toEqual([
      ['read/items', 200],
      ['unknown', 414],
    ]);
    expect(lines.join('\n')).not.toContain('vlk_secret');
  });
});
