import { randomBytes } from 'node:crypto';
import { sealLegacyBox } from '@vaultline/sealer/testing';
import { describe, expect, it } from 'vitest';
import {
  CHUNK_OVERHEAD,
  type ContentKey,
  IntegrityError,
  newContentKey,
  openContentKey,
} from './chunk-cipher.ts';
import { createSecretBox } from './secret-box.ts';

const masterKey = randomBytes(32);
const box = createSecretBox(masterKey);

/** A chunk sealed and joined as the database stores it. */
const sealed = (key: ContentKey, fileId: number, index: number, last: boolean, plain: Uint8Array) =>
  Buffer.concat(key.seal(fileId, index, last, plain));

describe('chunk cipher', () => {
  it('opens what it sealed, at the same place, with the key stored sealed', () => {
    const key = newContentKey(box);
    const plain = randomBytes(1000);
    const stored = sealed(key, 7, 3, false, plain);
    expect(stored.length).toBe(plain.length + CHUNK_OVERHEAD);
    expect(stored.includes(plain.subarray(0, 32))).toBe(false);
    const again = openContentKey(box, key.sealed, 7);
    expect(again.open(7, 3, false, stored).equals(plain)).toBe(true);
    expect(again.open(7, 0, true, sealed(key, 7, 0, true, Buffer.alloc(0))).length).toBe(0);
  });

  it('refuses a chunk at another place: file, index, or last flag', () => {
    const key = newContentKey(box);
    const stored = sealed(key, 7, 3, false, randomBytes(100));
    for (const [fileId, index, last] of [
      [8, 3, false],
      [7, 4, false],
      [7, 2, false],
      [7, 3, true],
    ] as const) {
      expect(() => key.open(fileId, index, last, stored)).toThrow(IntegrityError);
    }
  });

  it('refuses an altered, cut or empty chunk, and a chunk under another file key', () => {
    const key = newContentKey(box);
    const stored = sealed(key, 1, 0, true, randomBytes(100));
    for (let at = 0; at < stored.length; at += 13) {
      const altered = Buffer.from(stored);
      altered[at]! ^= 1;
      expect(() => key.open(1, 0, true, altered)).toThrow(IntegrityError);
    }
    expect(() => key.open(1, 0, true, stored.subarray(0, stored.length - 1))).toThrow(IntegrityError);
    expect(() => key.open(1, 0, true, Buffer.alloc(3))).toThrow(IntegrityError);
    expect(() => newContentKey(box).open(1, 0, true, stored)).toThrow(IntegrityError);
  });

  it('says which attachment failed, and nothing of its bytes', () => {
    const key = newContentKey(box);
    const plain = Buffer.from('top secret attachment text');
    const stored = sealed(key, 42, 0, true, plain);
    stored[0]! ^= 1;
    try {
      key.open(42, 0, true, stored);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(IntegrityError);
      expect((error as IntegrityError).fileId).toBe(42);
      expect((error as Error).message).toBe(
        'Attachment 42 failed its integrity check: its stored data was altered or is incomplete.',
      );
      expect((error as IntegrityError).code).toBe('server');
    }
  });

  it('refuses a content key sealed under another master key, or altered', () => {
    const key = newContentKey(box);
    const other = createSecretBox(randomBytes(32));
    expect(() => openContentKey(other, key.sealed, 5)).toThrow(IntegrityError);
    const altered = Buffer.from(key.sealed);
    altered[altered.length - 1]! ^= 1;
    expect(() => openContentKey(box, altered, 5)).toThrow(IntegrityError);
    // A sealed value of the wrong size is no content key.
    expect(() => openContentKey(box, box.seal(randomBytes(16)), 5)).toThrow(IntegrityError);
  });

  it('opens a blob of the first format in parts, and authenticates it at the end', () => {
    const plain = randomBytes(70_000);
    const sealed = sealLegacyBox(masterKey, plain);
    const parts = box.openInParts(sealed.subarray(0, 29));
    const out = Buffer.concat([parts.update(sealed.subarray(29, 1029)), parts.update(sealed.subarray(1029))]);
    parts.final();
    expect(out.equals(plain)).toBe(true);
    const altered = Buffer.from(sealed);
    altered[500]! ^= 1;
    const bad = box.openInParts(altered.subarray(0, 29));
    bad.update(altered.subarray(29));
    expect(() => bad.final()).toThrow(/could not be decrypted/);
  });
});
