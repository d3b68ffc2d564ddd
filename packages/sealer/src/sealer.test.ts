import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createDerivedSealer,
  createKeyring,
  FORMAT_VERSION,
  fromText,
  keyIdOf,
  NO_AAD,
  toText,
} from './index.ts';
import { sealErrorOf } from './testing.ts';

const key = () => randomBytes(32);

function flip(bytes: Buffer, at: number): Buffer {
  const copy = Buffer.from(bytes);
  copy[at] = (copy[at] ?? 0) ^ 1;
  return copy;
}

describe('createKeyring', () => {
  it('opens what it sealed, bytes and text, with the same additional data, and never holds it in clear', () => {
    const ring = createKeyring(key());
    const sealed = ring.seal('Hunter7!Quokka ☕', 'items/42/password');
    expect(sealed[0]).toBe(FORMAT_VERSION);
    expect(sealed.toString('latin1')).not.toContain('Hunter7');
    expect(ring.open(sealed, 'items/42/password').toString('utf8')).toBe('Hunter7!Quokka ☕');
    // A fresh nonce each time: the same value seals differently.
    expect(ring.seal('Hunter7!Quokka ☕', 'items/42/password').equals(sealed)).toBe(false);

    const text = ring.sealText(Buffer.from([0, 1, 2, 255]), NO_AAD);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect([...ring.openText(text, NO_AAD)]).toEqual([0, 1, 2, 255]);
    expect(ring.open(fromText(text), new Uint8Array(0)).length).toBe(4);
    expect(ring.openText(ring.sealText('', 'x'), 'x').length).toBe(0);
  });

  it('opens any value it sealed, with any additional data (property)', () => {
    const ring = createKeyring(key());
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), fc.string(), (plain, aad) => {
        expect(ring.open(ring.seal(plain, aad), aad).equals(Buffer.from(plain))).toBe(true);
      }),
    );
  });

  it('does not open a value with other additional data, another key, or any byte changed', () => {
    const ring = createKeyring(key());
    const sealed = ring.seal('Hunter7!Quokka', 'credentials/UALICE');
    expect(sealErrorOf(() => ring.open(sealed, 'credentials/UBOB'))).toBe('authentication');
    expect(sealErrorOf(() => ring.open(sealed, NO_AAD))).toBe('authentication');
    // Every byte: the header (version, flags, key id), the nonce, the tag and the ciphertext.
    for (let at = 0; at < sealed.length; at++) {
      expect(sealErrorOf(() => ring.open(flip(sealed, at), 'credentials/UALICE'))).not.toBe('opened');
    }
    expect(sealErrorOf(() => ring.open(sealed.subarray(0, sealed.length - 1), 'credentials/UALICE'))).toBe(
      'authentication',
    );
    // Another keyring does not know the key; one that claims its id (a forged header) does not open it.
    expect(sealErrorOf(() => createKeyring(key()).open(sealed, 'credentials/UALICE'))).toBe('unknown-key');
  });

  it('seals with the current key and opens with a previous one after a rotation, saying it needs sealing again', () => {
    const old = key();
    const sealed = createKeyring(old).sealText('Hunter7!Quokka', 'c');
    const fresh = key();
    const rotated = createKeyring(fresh, [old]);
    expect(rotated.openText(sealed, 'c').toString()).toBe('Hunter7!Quokka');
    expect(rotated.needsReseal(sealed)).toBe(true);
    expect(rotated.keyIdOf(sealed)).toBe(keyIdOf(old));
    const again = rotated.sealText(rotated.openText(sealed, 'c'), 'c');
    expect(rotated.needsReseal(again)).toBe(false);
    expect(rotated.needsReseal(fromText(again))).toBe(false);
    expect(rotated.keyIdOf(again)).toBe(rotated.keyId);
    // Once the old key is dropped, the old value no longer opens; the new one does.
    const after = createKeyring(fresh);
    expect(sealErrorOf(() => after.openText(sealed, 'c'))).toBe('unknown-key');
    // Values in another format, or no sealed value at all, need sealing again.
    for (const other of ['v1.abc.def.ghi.jkl', '', '!!', toText(Buffer.of(1, 2, 3))]) {
      expect(rotated.needsReseal(other)).toBe(true);
      expect(rotated.keyIdOf(other)).toBeUndefined();
    }
  });

  it('gives every key its own id, which does not contain the key', () => {
    const bytes = key();
    expect(keyIdOf(bytes)).toMatch(/^[0-9a-f]{16}$/);
    expect(keyIdOf(bytes)).not.toBe(keyIdOf(key()));
    expect(bytes.toString('hex')).not.toContain(keyIdOf(bytes));
    expect(createKeyring(bytes).keyId).toBe(keyIdOf(bytes));
  });

  it('refuses keys of the wrong size', () => {
    expect(sealErrorOf(() => createKeyring(randomBytes(16)))).toBe('key');
    expect(sealErrorOf(() => createKeyring(key(), [randomBytes(31)]))).toBe('key');
  });

  it('answers garbage and oversized input with a SealError, never another error or a value', () => {
    const ring = createKeyring(key(), [], { maxBytes: 1024 });
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.string({ maxLength: 200 }), (bytes, text) => {
        expect(sealErrorOf(() => ring.open(bytes, NO_AAD))).not.toBe('opened');
        expect(sealErrorOf(() => ring.openText(text, NO_AAD))).not.toBe('opened');
        // A forged header with a valid version and this keyring's id, and random rest.
        const forged = Buffer.concat([Buffer.of(FORMAT_VERSION, 0), Buffer.from(ring.keyId, 'hex'), bytes]);
        expect(sealErrorOf(() => ring.open(forged, NO_AAD))).not.toBe('opened');
      }),
    );
    expect(sealErrorOf(() => ring.openText('not base64url!', NO_AAD))).toBe('format');
    expect(sealErrorOf(() => ring.open(Buffer.of(9, 0, ...randomBytes(60)), NO_AAD))).toBe('format');
    expect(sealErrorOf(() => ring.open(Buffer.of(FORMAT_VERSION, 4, ...randomBytes(60)), NO_AAD))).toBe(
      'format',
    );
    expect(sealErrorOf(() => ring.seal(randomBytes(1025), NO_AAD))).toBe('too-large');
    expect(sealErrorOf(() => ring.open(randomBytes(4096), NO_AAD))).toBe('too-large');
    // A value of a derived sealer is not the keyring's.
    expect(sealErrorOf(() => ring.open(createDerivedSealer('m', 'i').seal('x', NO_AAD), NO_AAD))).toBe(
      'format',
    );
  });

  it('says nothing of the value or the key in its errors', () => {
    const bytes = key();
    const ring = createKeyring(bytes);
    const sealed = ring.seal('Hunter7!Quokka', 'a');
    for (const open of [() => ring.open(sealed, 'b'), () => createKeyring(key()).open(sealed, 'a')]) {
      try {
        open();
      } catch (error) {
        const message = String((error as Error).message);
        expect(message).not.toContain('Hunter7');
        expect(message).not.toContain(bytes.toString('hex'));
        expect(message).not.toContain(bytes.toString('base64'));
      }
    }
  });
});

describe('createDerivedSealer', () => {
  it('opens with the same material and info, with a new salt and key for every value', () => {
    const sealer = createDerivedSealer(
      'correct horse battery staple',
      '["session v2","https://vault","alice"]',
    );
    const one = sealer.sealText('{"token":"tok-123"}', 'aad');
    const two = sealer.sealText('{"token":"tok-123"}', 'aad');
    expect(fromText(one).subarray(10, 26).equals(fromText(two).subarray(10, 26))).toBe(false);
    expect(sealer.openText(one, 'aad').toString()).toBe('{"token":"tok-123"}');
    expect(sealer.needsReseal(one)).toBe(false);
    expect(sealer.needsReseal('garbage!')).toBe(true);
    expect(sealer.needsReseal(createKeyring(key()).seal('x', NO_AAD))).toBe(true);
  });

  it('does not open with other material, other info, other additional data, or any byte changed', () => {
    const sealer = createDerivedSealer(Buffer.from('material'), 'info');
    const sealed = sealer.seal('secret value', 'aad');
    expect(sealErrorOf(() => createDerivedSealer('other', 'info').open(sealed, 'aad'))).toBe('unknown-key');
    expect(sealErrorOf(() => createDerivedSealer('material', 'other').open(sealed, 'aad'))).toBe(
      'unknown-key',
    );
    expect(sealErrorOf(() => sealer.open(sealed, 'other'))).toBe('authentication');
    for (let at = 0; at < sealed.length; at++) {
      expect(sealErrorOf(() => sealer.open(flip(sealed, at), 'aad'))).not.toBe('opened');
    }
    expect(sealErrorOf(() => sealer.open(createKeyring(key()).seal('x', NO_AAD), NO_AAD))).toBe('format');
    expect(sealErrorOf(() => sealer.open(Buffer.alloc(0), NO_AAD))).toBe('format');
  });
});
