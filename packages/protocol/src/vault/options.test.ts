import { describe, expect, it } from 'vitest';
import { settingsOf } from './options.ts';

describe('settings', () => {
  it('apply every default once, by the public names, and leave a field set to undefined at its default', () => {
    const settings = settingsOf({
      baseUrl: 'https://vault.example.com',
      auth: 'key',
      retry: { delayMs: 50, retries: undefined },
      teampass3: { concurrency: 0 },
      legacy: { keyTransport: 'header' },
    });
    expect(settings.retry).toEqual({ retries: 2, delayMs: 50, rateLimitRetries: 2, maxRetryAfterMs: 30_000 });
    expect(settings.teampass3).toMatchObject({ concurrency: 1, pageSize: 500, maxItems: 100_000 });
    expect(settings.legacy).toMatchObject({
      keyTransport: 'header',
      apiPath: '/api/index.php',
      maxUrlLength: 8192,
    });
    expect(settings).toMatchObject({ timeoutMs: 10_000, headers: {}, credentials: { apiKey: 'key' } });
  });

  it('keep the credentials once, never the auth option as given', () => {
    expect(Object.keys(settingsOf({ baseUrl: 'https://vault.example.com', auth: 'key' }))).not.toContain(
      'auth',
    );
  });
});
