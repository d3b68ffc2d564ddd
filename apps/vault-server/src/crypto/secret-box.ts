/**
 * Secrets at rest, sealed under the master key with `@vaultline/sealer` (its format: version, key
 * id, nonce, tag, ciphertext; AES-256-GCM). Values sealed before it, in the server's first format
 * (`1 | nonce | tag | ciphertext`), still open: {@link SecretBox.open} reads both, and
 * `rotate-master-key` seals every secret again in the current format.
 *
 * @module
 */

import { createSecretKey } from 'node:crypto';
import { VaultError } from '@vaultline/protocol';
import {
  createKeyring,
  isLegacyBox,
  LEGACY_BOX_HEADER_BYTES,
  NO_AAD,
  openLegacyBox,
  openLegacyBoxInParts,
  SealError,
} from '@vaultline/sealer';

/** Bytes of a blob attachment of the first format before its ciphertext: version, nonce and tag. */
export const SEALED_HEADER_BYTES = LEGACY_BOX_HEADER_BYTES;

/** A sealed value opened in parts: its ciphertext in order, then {@link OpenInParts.final}. */
export interface OpenInParts {
  /** Decrypts the next part. Its bytes are not authenticated before {@link OpenInParts.final}. */
  update(part: Uint8Array): Buffer;
  /** Authenticates everything given; throws on a wrong key or altered data. */
  final(): void;
}

/** Seals and opens secrets at rest with AES-256-GCM under the master key. */
export interface SecretBox {
  /**
   * Encrypts, in the sealer's format. With `aad` (additional data, e.g. the row a value belongs
   * to), the value opens only with the same `aad`: moved to another row, it fails. Without, it is
   * sealed with no additional data (`NO_AAD`).
   */
  seal(plain: Uint8Array, aad?: Uint8Array): Buffer;
  /**
   * Decrypts and authenticates (with the `aad` it was sealed with), in the sealer's format or the
   * server's first one; throws a `server` VaultError on a wrong key or altered data.
   */
  open(sealed: Uint8Array, aad?: Uint8Array): Buffer;
  sealText(plain: string): Buffer;
  openText(sealed: Uint8Array): string;
  /**
   * Opens a blob attachment of the first format (stored before migration 6, too large to hold
   * whole) from its first {@link SEALED_HEADER_BYTES} bytes; its ciphertext follows in parts.
   */
  openInParts(header: Uint8Array): OpenInParts;
}

const unknownFormat = () => new VaultError('server', 'A stored secret has an unknown format.');
const notDecrypted = () =>
  new VaultError('server', 'A stored secret could not be decrypted with the master key.');

/** The server's error for a value that does not open: its format, or its key and data. */
function failure(error: unknown): unknown {
  if (!(error instanceof SealError)) return error;
  return error.code === 'format' || error.code === 'too-large' ? unknownFormat() : notDecrypted();
}

/**
 * Creates a secret box over a 32-byte master key.
 *
 * @param rawKey The master key.
 * @returns The box.
 */
export function createSecretBox(rawKey: Uint8Array): SecretBox {
  if (rawKey.length !== 32)
    throw new Error(`Expected a 32-byte master key, received ${rawKey.length} bytes.`);
  const keyring = createKeyring(rawKey);
  // The first format's values are opened with the same key, held as a KeyObject like the keyring's.
  const key = createSecretKey(rawKey);
  const open = (sealed: Uint8Array, aad?: Uint8Array): Buffer => {
    try {
      return isLegacyBox(sealed) ? openLegacyBox(key, sealed, aad) : keyring.open(sealed, aad ?? NO_AAD);
    } catch (error) {
      throw failure(error);
    }
  };
  return {
    seal: (plain, aad) => keyring.seal(plain, aad ?? NO_AAD),
    open,
    sealText: (plain) => keyring.seal(plain, NO_AAD),
    openText: (sealed) => open(sealed).toString('utf8'),
    openInParts(header) {
      let parts: OpenInParts;
      try {
        parts = openLegacyBoxInParts(key, header);
      } catch (error) {
        throw failure(error);
      }
      return {
        update: (part) => parts.update(part),
        final() {
          try {
            parts.final();
          } catch (error) {
            throw failure(error);
          }
        },
      };
    },
  };
}
