import { randomBytes } from 'node:crypto';
import { VaultError } from '@vaultline/protocol';
import { FORMAT_VERSION } from '@vaultline/sealer';
import { sealLegacyBox } from '@vaultline/sealer/testing';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from './secret-box.ts';

/** Sealed by the server's secret box at 99e026a under 32 bytes of 7 (a throwaway key). */
const FIRST_FORMAT = {
  key: Buffer.alloc(32, 7),
  /** `sealText('Hunter7!Quokka ☕')`. */
  text: 'ARR0IYMyaQmiP9qKS79WTtTVV9A8qkI3gq/IH5Li5/2+vFC3rr3Eq1Z6XHl9r1I=',
  /** `seal(Buffer.from('row secret'), Buffer.from('upstream_accounts/42'))`. */
  withAad: 'AQCqJezaF4Gy3vSPMa3qCPMfr69Kmvil0JA11dsVtiS7GUeHRvfK',
};

describe('secret box', () => {
  it('seals in the sealer’s format and opens it, with the row’s additional data where given', () => {
    const box = createSecretBox(randomBytes(32));
    const sealed = box.sealText('Hunter7!Quokka');
    expect(sealed[0]).toBe(FORMAT_VERSION);
    expect(box.openText(sealed)).toBe('Hunter7!Quokka');
    const row = box.seal(Buffer.from('row secret'), Buffer.from('upstream_accounts/1'));
    expect(box.open(row, Buffer.from('upstream_accounts/1')).toString()).toBe('row secret');
    expect(() => box.open(row, Buffer.from('upstream_accounts/2'))).toThrow(/could not be decrypted/);
    expect(() => box.open(row)).toThrow(VaultError);
  });

  it('opens what the server sealed in its first format, with and without additional data', () => {
    const box = createSecretBox(FIRST_FORMAT.key);
    expect(box.openText(Buffer.from(FIRST_FORMAT.text, 'base64'))).toBe('Hunter7!Quokka ☕');
    const withAad = Buffer.from(FIRST_FORMAT.withAad, 'base64');
    expect(box.open(withAad, Buffer.from('upstream_accounts/42')).toString()).toBe('row secret');
    expect(() => box.open(withAad, Buffer.from('upstream_accounts/43'))).toThrow(/could not be decrypted/);
    const fresh = sealLegacyBox(FIRST_FORMAT.key, Buffer.from('again'));
    expect(box.openText(fresh)).toBe('again');
    expect(() => createSecretBox(randomBytes(32)).openText(fresh)).toThrow(/could not be decrypted/);
  });

  it('answers a value of no known format, or a wrong key, with a server error that holds no secret', () => {
    const box = createSecretBox(randomBytes(32));
    for (const garbage of [Buffer.alloc(0), Buffer.of(9, 1, 2), randomBytes(200), Buffer.of(2, 0)]) {
      expect(() => box.open(garbage)).toThrow(VaultError);
    }
    expect(() => box.open(Buffer.of(9, ...randomBytes(60)))).toThrow(/unknown format/);
    const sealed = box.sealText('Hunter7!Quokka');
    try {
      createSecretBox(randomBytes(32)).openText(sealed);
      expect.unreachable();
    } catch (error) {
      expect((error as VaultError).code).toBe('server');
      expect((error as Error).message).not.toContain('Hunter7');
    }
    expect(() => createSecretBox(randomBytes(16))).toThrow(/32-byte master key/);
  });
});
