import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { parseCidrList } from '../net/ip-rules.ts';
import type { AppEnv } from './app-env.ts';
import { addressOf, clientAddress, clientAddressMiddleware } from './client-address.ts';

describe('clientAddress', () => {
  const trusted = parseCidrList(['10.0.0.0/8'], 'the trusted proxies');

  it('is the socket peer unless the peer is a trusted proxy', () => {
    expect(clientAddress('::ffff:192.0.2.1', '203.0.113.5', undefined)).toBe('192.0.2.1');
    expect(clientAddress('192.0.2.1', '203.0.113.5', trusted)).toBe('192.0.2.1');
  });

  it('takes the nearest untrusted hop behind a trusted proxy', () => {
    expect(clientAddress('10.0.0.1', '203.0.113.5, 10.0.0.2', trusted)).toBe('203.0.113.5');
    expect(clientAddress('10.0.0.1', 'not-an-ip, 10.0.0.2', trusted)).toBe('10.0.0.1');
  });
});

describe('addressOf', () => {
  const from = (socketAddress: string | undefined, forwarded: string) => ({
    socketAddress,
    header: (name: string) => (name === 'x-forwarded-for' ? forwarded : undefined),
  });

  it('ignores X-Forwarded-For without trusted proxies, and takes a missing socket as local', () => {
    expect(addressOf([])(from('192.0.2.1', '203.0.113.5'))).toBe('192.0.2.1');
    expect(addressOf([])(from(undefined, '203.0.113.5'))).toBe('127.0.0.1');
  });

  it('believes a trusted proxy', () => {
    expect(addressOf(['127.0.0.1/32'])(from('127.0.0.1', '203.0.113.5'))).toBe('203.0.113.5');
  });
});

describe('clientAddressMiddleware', () => {
  it("sets the address of the Hono app's requests", async () => {
    const app = new Hono<AppEnv>();
    app.use('*', clientAddressMiddleware(addressOf(['127.0.0.1/32'])));
    app.get('/', (c) => c.text(c.get('address')));
    const answer = await app.request('/', { headers: { 'x-forwarded-for': '203.0.113.5' } });
    expect(await answer.text()).toBe('203.0.113.5');
  });
});
