import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VaultError } from '../errors.ts';
import { exchangeOidcToken, OIDC_EXCHANGE_PATH } from './exchange.ts';

const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0.c2lnbmF0dXJlLXNlY3JldA';

describe('exchangeOidcToken', () => {
  let server: Server;
  let url: string;
  let answer: { status: number; body: string } = { status: 200, body: '' };
  const received: { method: string; path: string; type: string; body: string }[] = [];
  const bodyOf = async (req: IncomingMessage) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    return text;
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      void bodyOf(req).then((body) => {
        received.push({
          method: req.method ?? '',
          path: req.url ?? '',
          type: req.headers['content-type'] ?? '',
          body,
        });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('POSTs the token in a JSON body under /api and reads the key', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({
        key: 'vlk_k',
        label: 'oidc/p/x',
        expires_at: '2030-01-01T00:00:00.000Z',
        policy: 'p',
        login: 'ci',
      }),
    };
    const key = await exchangeOidcToken({ baseUrl: `${url}/api/index.php/`, token: TOKEN, policy: 'p' });
    expect(key).toEqual({
      apiKey: 'vlk_k',
      label: 'oidc/p/x',
      expiresAt: Date.parse('2030-01-01T00:00:00.000Z'),
      login: 'ci',
    });
    expect(received.at(-1)).toEqual({
      method: 'POST',
      path: `/api${OIDC_EXCHANGE_PATH}`,
      type: 'application/json',
      body: JSON.stringify({ token: TOKEN, policy: 'p' }),
    });
  });

  it.each([
    [
      401,
      { err: `The token has expired: ${TOKEN}`, code: 'unauthorized' },
      'unauthorized',
      /expired: \[REDACTED\]/,
    ],
    [429, { err: 'Too many refused tokens', code: 'rate_limited' }, 'rate_limited', /Too many/],
    [502, 'not json', 'server', /HTTP 502/],
  ])('turns an answer of %i into a VaultError without the token', async (status, body, code, words) => {
    answer = { status, body: typeof body === 'string' ? body : JSON.stringify(body) };
    const error = await exchangeOidcToken({ baseUrl: url, token: TOKEN }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VaultError);
    expect(error).toMatchObject({ code, status });
    expect((error as Error).message).toMatch(words);
    expect(JSON.stringify(error) + (error as Error).message).not.toContain(TOKEN);
  });

  it('refuses an answer of another shape', async () => {
    answer = { status: 200, body: JSON.stringify({ key: 'vlk_k' }) };
    await expect(exchangeOidcToken({ baseUrl: url, token: TOKEN })).rejects.toMatchObject({
      code: 'invalid_response',
    });
  });

  it('says the server could not be reached, or did not answer in time', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(
      exchangeOidcToken({ baseUrl: `http://127.0.0.1:${port}`, token: TOKEN }),
    ).rejects.toMatchObject({
      code: 'network',
      reason: 'unreachable',
    });
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const address = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      await expect(
        exchangeOidcToken({ baseUrl: address, token: TOKEN, timeoutMs: 50 }),
      ).rejects.toMatchObject({
        code: 'timeout',
      });
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
