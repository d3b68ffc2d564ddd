import { describe, expect, it } from 'vitest';
import { escapeMrkdwn, escapeText, safeHttpUrl } from './escape.ts';

describe('escapeMrkdwn', () => {
  it.each([
    ['<!here>', '&lt;!here&gt;'],
    ['<!channel|x>', '&lt;!channel|x&gt;'],
    ['<@U123>', '&lt;@U123&gt;'],
    ['<https://evil.example|Click me>', '&lt;https://evil.example|Click me&gt;'],
    ['a & b', 'a &amp; b'],
    ['&lt;', '&amp;lt;'],
    ['ping @here now', 'ping @\u2060here now'],
    ['@Channel', '@\u2060Channel'],
    ['@everyone', '@\u2060everyone'],
    ['line\nbreak', 'line break'],
    ['Mot de passe ☃ 密码', 'Mot de passe ☃ 密码'],
  ])('turns %j into %j', (input, output) => {
    expect(escapeMrkdwn(input)).toBe(output);
  });

  it('shortens long text by code points, not UTF-16 units', () => {
    const out = escapeMrkdwn('😀'.repeat(10), 5);
    expect(out).toBe('😀😀😀😀…');
  });
});

describe('escapeText and mrkdwn formatting', () => {
  it.each([
    ['\u202Eevil', '\uFFFDevil'],
    ['git\u200Bhub', 'git\uFFFDhub'],
    ['a\u2066b\u2069', 'a\uFFFDb\uFFFD'],
    ['*bold* _it_', '*bold* _it_'],
  ])('shows %j as %j in plain text', (input, output) => {
    expect(escapeText(input)).toBe(output);
  });

  it('turns mrkdwn formatting characters into look-alikes that format nothing', () => {
    expect(escapeMrkdwn('*b* _i_ ~s~ `c`')).toBe('∗b∗ ＿i＿ ∼s∼ ˋcˋ');
  });
});

describe('safeHttpUrl', () => {
  it.each([
    ['https://example.com/a?b=c', 'https://example.com/a?b=c'],
    ['  http://example.com  ', 'http://example.com/'],
    ['javascript:alert(1)', undefined],
    ['ftp://example.com', undefined],
    ['https://user:pw@example.com', undefined],
    ['not a url', undefined],
    ['', undefined],
  ])('maps %j to %j', (input, output) => {
    expect(safeHttpUrl(input, 3000)).toBe(output);
  });

  it('refuses a URL longer than the limit', () => {
    expect(safeHttpUrl(`https://example.com/${'a'.repeat(100)}`, 50)).toBeUndefined();
  });
});
