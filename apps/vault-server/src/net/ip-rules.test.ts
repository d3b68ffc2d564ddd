import { describe, expect, it } from 'vitest';
import { clientAddress } from '../http/client-address.ts';
import { normalizeAddress, parseCidrList } from './ip-rules.ts';

describe('parseCidrList', () => {
  const inside = parseCidrList(['10.0.0.0/8', '192.168.1.7', '2001:db8::/32', '::1/128'], 'test');

  it.each([
    ['10.1.2.3', true],
    ['11.0.0.1', false],
    ['192.168.1.7', true],
    ['192.168.1.8', false],
    ['::ffff:10.9.9.9', true],
    ['2001:db8:1::5', true],
    ['2001:db9::1', false],
    ['::1', true],
    ['not-an-ip', false],
    ['', false],
  ])('tells whether %s is inside: %s', (address, expected) => {
    expect(inside(address)).toBe(expected);
  });

  it.each(['10.0.0.0/33', '::/129', '10.0.0.0/x', 'example.com', '10.0.0.0/-1', '1.2.3.4/08a'])(
    'refuses %s with a clear message',
    (range) => {
      expect(() => parseCidrList([range], 'the list')).toThrow(/the list/);
    },
  );
});

describe('normalizeAddress', () => {
  it('turns IPv4-mapped IPv6 into IPv4 and leaves the rest', () => {
    expect(normalizeAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(normalizeAddress('::1')).toBe('::1');
  });
});

describe('clientAddress', () => {
  const trusted = parseCidrList(['127.0.0.1/32', '10.0.0.0/8'], 'proxies');

  it.each([
    [
      'no trusted proxy: the socket, whatever the header says',
      '203.0.113.1',
      '10.1.1.1',
      undefined,
      '203.0.113.1',
    ],
    ['a peer that is not trusted: the socket', '203.0.113.1', '198.51.100.2', trusted, '203.0.113.1'],
    ['through a trusted proxy: the last hop', '127.0.0.1', '198.51.100.2', trusted, '198.51.100.2'],
    [
      'through two trusted proxies: the nearest untrusted hop',
      '127.0.0.1',
      '198.51.100.2, 10.0.0.5',
      trusted,
      '198.51.100.2',
    ],
    ['a forged first hop is ignored', '127.0.0.1', '1.1.1.1, 198.51.100.2', trusted, '198.51.100.2'],
    ['garbage in the header: the socket', '127.0.0.1', 'nonsense', trusted, '127.0.0.1'],
  ])('%s', (_, socket, header, isTrusted, expected) => {
    expect(clientAddress(socket, header, isTrusted)).toBe(expected);
  });
});
