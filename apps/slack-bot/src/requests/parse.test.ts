import { describe, expect, it } from 'vitest';
import { parseRequestText, requestKey } from './parse.ts';

describe('parseRequestText', () => {
  it.each([
    ['42 need it for the deploy', { typed: '42', reason: 'need it for the deploy' }],
    ['prod-db', { typed: 'prod-db', reason: '' }],
    ['"db main" rotate it', { typed: 'db main', reason: 'rotate it' }],
    ['“café wifi” guests', { typed: 'café wifi', reason: 'guests' }],
    ['', { typed: '', reason: '' }],
  ])('reads %j', (text, expected) => {
    expect(parseRequestText(text)).toEqual(expected);
  });

  it('cuts a reason to 500 characters', () => {
    expect([...parseRequestText(`1 ${'é'.repeat(600)}`).reason]).toHaveLength(500);
  });
});

describe('requestKey', () => {
  it('keys a request on what was typed: an id, or a label as the vault compares labels', () => {
    expect(requestKey('12')).toBe('id:12');
    expect(requestKey(' 12 ')).toBe('id:12');
    expect(requestKey('PROD-db')).toBe(requestKey('prod-db'));
    expect(requestKey('Café Wi-Fi')).toBe(requestKey('cafe wi-fi '));
    // An id and a label never share a key, whatever item they name.
    expect(requestKey('12')).not.toBe(requestKey('prod-db'));
  });
});
