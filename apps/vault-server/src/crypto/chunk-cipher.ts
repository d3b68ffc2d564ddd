/**
 * Attachments at rest: a file is cut into chunks of {@link CHUNK_BYTES}, each sealed on its own
 * with AES-256-GCM under a key of that file alone (its content key, random, stored sealed by the
 * master key's {@link SecretBox}). So a file is encrypted, stored, read and decrypted one chunk at
 * a time, never whole, and every chunk is authenticated before a byte of it is used.
 *
 * Each chunk's additional authenticated data binds it to its place: the file's id, the chunk's
 * index and whether it is the last one. A chunk moved to another file or another index, chunks
 * reordered, dropped, or cut off after any chunk (the last one read is then not marked last), and a
 * chunk count changed in the database all fail authentication. The content key is used for one
 * file's chunks only, each index once, so the nonce is the index itself: never reused under a key.
 *
 * @module
 */

import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { VaultError } from '@vaultline/protocol';
import type { SecretBox } from './secret-box.ts';

/** Plaintext bytes per chunk (the last chunk holds the rest, possibly nothing). */
export const CHUNK_BYTES = 128 * 1024;
/** Bytes a sealed chunk adds to its plaintext: the GCM tag. */
export const CHUNK_OVERHEAD = 16;

const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Names this format in every chunk's AAD: a chunk of another scheme never authenticates. */
const DOMAIN = Buffer.from('vaultline attachment chunk v2\0', 'latin1');

/** A sealed chunk, in its two parts. */
export type SealedChunk = readonly [ciphertext: Buffer, tag: Buffer];

/** A file's content key, ready to seal or open its chunks. */
export interface ContentKey {
  /** The key as stored: sealed by the master key. */
  readonly sealed: Buffer;
  /**
   * Seals one chunk.
   *
   * @param fileId The file the chunk belongs to.
   * @param index Its index, from 0.
   * @param last Whether it is the file's last chunk.
   * @param plain Its bytes, at most {@link CHUNK_BYTES}.
   * @returns The ciphertext and the tag, stored as `ciphertext | tag` (joined by the database:
   *   one copy of the chunk less in this process).
   */
  seal(fileId: number, index: number, last: boolean, plain: Uint8Array): SealedChunk;
  /**
   * Opens one chunk and checks that it is the one expected at that place.
   *
   * @returns Its bytes.
   * @throws {VaultError} `server` when the chunk was altered, moved, or is not the one expected.
   */
  open(fileId: number, index: number, last: boolean, sealed: Uint8Array): Buffer;
}

/** An attachment whose stored data fails its check: its bytes are never given. */
export class IntegrityError extends VaultError {
  override name = 'IntegrityError';
  /** The attachment. */
  readonly fileId: number;

  constructor(fileId: number) {
    super(
      'server',
      `Attachment ${fileId} failed its integrity check: its stored data was altered or is incomplete.`,
    );
    this.fileId = fileId;
  }
}

/** Shorthand for an {@link IntegrityError}. */
export function integrityError(fileId: number): IntegrityError {
  return new IntegrityError(fileId);
}

function nonceOf(index: number): Buffer {
  const nonce = Buffer.alloc(NONCE_BYTES);
  nonce.writeUInt32BE(index, NONCE_BYTES - 4);
  return nonce;
}

function aadOf(fileId: number, index: number, last: boolean): Buffer {
  const place = Buffer.alloc(8 + 4 + 1);
  place.writeBigUInt64BE(BigInt(fileId), 0);
  place.writeUInt32BE(index, 8);
  place.writeUInt8(last ? 1 : 0, 12);
  return Buffer.concat([DOMAIN, place]);
}

function contentKey(raw: Buffer, sealed: Buffer): ContentKey {
  const key: KeyObject = createSecretKey(raw);
  raw.fill(0);
  return {
    sealed,
    seal(fileId, index, last, plain) {
      const cipher = createCipheriv('aes-256-gcm', key, nonceOf(index));
      cipher.setAAD(aadOf(fileId, index, last));
      const body = cipher.update(plain);
      cipher.final();
      return [body, cipher.getAuthTag()];
    },
    open(fileId, index, last, sealed) {
      if (sealed.byteLength < TAG_BYTES) throw integrityError(fileId);
      const data = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
      const decipher = createDecipheriv('aes-256-gcm', key, nonceOf(index));
      decipher.setAAD(aadOf(fileId, index, last));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      try {
        const plain = decipher.update(data.subarray(0, data.length - TAG_BYTES));
        // GCM gives everything from update(); final() checks the tag.
        decipher.final();
        return plain;
      } catch {
        throw integrityError(fileId);
      }
    },
  };
}

/**
 * A new random content key for one file.
 *
 * @param box The master key's box, which seals it for storage.
 * @returns The key.
 */
export function newContentKey(box: SecretBox): ContentKey {
  const raw = randomBytes(KEY_BYTES);
  return contentKey(raw, box.seal(raw));
}

/**
 * A file's content key, from its stored (sealed) form.
 *
 * @param box The master key's box.
 * @param sealed The key as stored.
 * @param fileId The file, for the error.
 * @returns The key.
 * @throws {VaultError} `server` when it does not open under the master key or has the wrong size.
 */
export function openContentKey(box: SecretBox, sealed: Uint8Array, fileId: number): ContentKey {
  let raw: Buffer;
  try {
    raw = box.open(sealed);
  } catch {
    throw integrityError(fileId);
  }
  if (raw.length !== KEY_BYTES) throw integrityError(fileId);
  return contentKey(raw, Buffer.from(sealed));
}
