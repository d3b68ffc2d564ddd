import { describe, expect, it } from 'vitest';
import { decodeBase32, normalizeTotp, totpAt } from './totp.ts';

/** The shared secrets of RFC 6238 appendix B, in Base32. */
const SHA1 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'; // "12345678901234567890"
const SHA256 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA';
const SHA512 =
  'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNA';

describe('totpAt', () => {
  it.each([
    [59, '94287082', '46119246', '90693936'],
    [1111111109, '07081804', '68084774', '25091201'],
    [1234567890, '89005924', '91819424', '93441116'],
    [20000000000, '65353130', '77737706', '47863826'],
  ])('gives the RFC 6238 code at T=%i', (t, sha1, sha256, sha512) => {
    expect(totpAt({ secret: SHA1, algorithm: 'sha1', digits: 8, period: 30 }, t).code).toBe(sha1);
    expect(totpAt({ secret: SHA256, algorithm: 'sha256', digits: 8, period: 30 }, t).code).toBe(sha256);
    expect(totpAt({ secret: SHA512, algorithm: 'sha512', digits: 8, period: 30 }, t).code).toBe(sha512);
  });

  it('says how many seconds the code stays valid', () => {
    expect(totpAt({ secret: SHA1, algorithm: 'sha1', digits: 6, period: 30 }, 59).expiresIn).toBe(1);
    expect(totpAt({ secret: SHA1, algorithm: 'sha1', digits: 6, period: 30 }, 60).expiresIn).toBe(30);
  });
});

describe('normalizeTotp', () => {
  it('normalises a secret typed in groups, and reads otpauth URIs', () => {
    expect(normalizeTotp('jbsw y3dp-ehpk 3pxp==', 'SHA1', 6, 30)).toEqual({
      secret: 'JBSWY3DPEHPK3PXP',
      algorithm: 'sha1',
      digits: 6,
      period: 30,
    });
    expect(
      normalizeTotp(
        'otpauth://totp/x:y?secret=JBSWY3DPEHPK3PXP&algorithm=SHA256&digits=8&period=60',
        'sha1',
        6,
        30,
      ),
    ).toEqual({ secret: 'JBSWY3DPEHPK3PXP', algorithm: 'sha256', digits: 8, period: 60 });
  });

  it.each([
    ['', 'The TOTP secret cannot be empty.'],
    ['not base32!', 'The TOTP secret or provisioning URI is invalid.'],
    ['otpauth://hotp/x?secret=JBSWY3DP', 'Only TOTP provisioning URIs are supported.'],
  ])('refuses %j with TeamPass words', (input, words) => {
    expect(() => normalizeTotp(input, 'sha1', 6, 30)).toThrow(words);
  });

  it('refuses profiles TeamPass refuses', () => {
    expect(() => normalizeTotp('JBSWY3DP', 'md5', 6, 30)).toThrow(
      'The TOTP algorithm must be SHA-1, SHA-256, or SHA-512.',
    );
    expect(() => normalizeTotp('JBSWY3DP', 'sha1', 7, 30)).toThrow(
      'The TOTP code length must be 6 or 8 digits.',
    );
    expect(() => normalizeTotp('JBSWY3DP', 'sha1', 6, 0)).toThrow('between 1 and 86400 seconds');
    expect(decodeBase32('A1')).toBeUndefined();
  });
});
