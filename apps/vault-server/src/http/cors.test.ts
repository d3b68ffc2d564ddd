import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from './app-env.ts';
import { corsMiddleware } from './cors.ts';

describe('corsMiddleware', () => {
  it('allows nothing by default', () => {
    expect(corsMiddleware([])).toBeUndefined();
  });

  it('answers the preflight of an allowed origin and only of it', async () => {
    const app = new Hono<AppEnv>();
    app.use('*', corsMiddleware(['https://vscode.dev'])!);
    app.get('/api/x', (c) => c.text('ok'));
    const preflight = await app.request('/api/x', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://vscode.dev',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://vscode.dev');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
    const other = await app.request('/api/x', { headers: { origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const allowed = await app.request('/api/x', { headers: { origin: 'https://vscode.dev' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://vscode.dev');
  });
});
