/**
 * The sealed format (version 2) and the sealers that write it: AES-256-GCM under a key of a
 * {@link Keyring} (the current key seals, every key opens) or under a key derived with HKDF-SHA256
 * from key material and a random salt per value ({@link createDerivedSealer}).
 *
 * A sealed value, in bytes (the text form is the same bytes in base64url):
 *
 * | bytes | what |
 * |---|---|
 * | 1 | the format's version, `2` |
 * | 1 | flags: `1` when the key is derived with HKDF (a salt follows the key id), else `0` |
 * | 8 | the key id: the first 8 bytes of HMAC-SHA256 of a fixed label under the key |
 * | 16 | the salt, for a derived key only |
 * | 12 | the nonce, random |
 * | 16 | the GCM tag |
 * | rest | the ciphertext |
 *
 * The GCM additional data is a domain label, the header (version, flags, key id, salt) and the
 * caller's additional data: a value opens only where it was sealed for (another row, field or
 * user, and it fails), and a header altered in any byte fails too.
 *
 * @module
 */

import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';

/** The format's version: the first byte of every sealed value. */
export const FORMAT_VERSION = 2;
/** The length of a key: AES-256. */
export const KEY_BYTES = 32;
/** The largest plaintext sealed or sealed value opened by default (64 MiB). */
export const MAX_SEALED_BYTES = 64 * 1024 * 1024;
/** The lengths of a sealed value's parts: the key id, the salt of a derived key, the nonce, the GCM tag. */
const KEY_ID_BYTES = 8;
const SALT_BYTES = 16;
export const NONCE_BYTES = 12;
export const TAG_BYTES = 16;

/** The flag of a value whose key is derived (a salt follows the key id). */
const FLAG_DERIVED = 1;
/** Names this format in every value's additional data: a value of another scheme never opens. */
const DOMAIN = Buffer.from('vaultline sealed v2\0', 'latin1');
const KEY_ID_LABEL = 'vaultline sealer key id';

/**
 * The additional data a value is sealed with: what it belongs to (a row, a field, a user), as bytes
 * or as text (UTF-8). Every call names it; {@link NO_AAD} says that nothing is bound.
 */
export type Aad = Uint8Array | string;

/** No additional data: the value is bound to nothing but its key. Said explicitly, never by default. */
export const NO_AAD: Aad = new Uint8Array(0);

/** Why a value was not sealed or opened. */
export type SealErrorCode = 'format' | 'unknown-key' | 'authentication' | 'too-large' | 'key';

const MESSAGES: Record<SealErrorCode, string> = {
  format: 'The value is not a sealed value of a known format.',
  'unknown-key': 'The value is sealed with a key that is not configured.',
  authentication:
    'The value does not open: it was altered, sealed with another key, or sealed for something else.',
  'too-large': 'The value is larger than a sealed value may be.',
  key: `A sealing key must be ${KEY_BYTES} bytes.`,
};

/**
 * A value that was not sealed or not opened. Its message says why, never the value or a key.
 */
export class SealError extends Error {
  override name = 'SealError';
  /** Why. */
  readonly code: SealErrorCode;

  constructor(code: SealErrorCode) {
    super(MESSAGES[code]);
    this.code = code;
  }
}

/** Seals and opens values (see the module's notes for the format). */
export interface Sealer {
  /**
   * Seals a value.
   *
   * @param plain The value: bytes, or text (UTF-8).
   * @param aad What it belongs to; {@link NO_AAD} for nothing.
   * @returns The sealed value, in bytes.
   * @throws {SealError} `too-large` above the sealer's limit.
   */
  seal(plain: Uint8Array | string, aad: Aad): Buffer;
  /** {@link Sealer.seal}, in the text form (base64url). */
  sealText(plain: Uint8Array | string, aad: Aad): string;
  /**
   * Opens a sealed value and authenticates it with the additional data it was sealed with.
   *
   * @param sealed The sealed value, in bytes.
   * @param aad What it belongs to, as when it was sealed.
   * @returns The value's bytes.
   * @throws {SealError} `format` (not a sealed value, truncated, another version), `unknown-key`
   *   (no key of the sealer has its id), `authentication` (altered, other key, other `aad`),
   *   `too-large`.
   */
  open(sealed: Uint8Array, aad: Aad): Buffer;
  /** {@link Sealer.open} of the text form; `format` when the text is not base64url. */
  openText(sealed: string, aad: Aad): Buffer;
  /**
   * Whether a value should be sealed again: it is not in this format, or not sealed with the
   * current key. Reads the header only; says nothing of whether the value opens.
   *
   * @param sealed The sealed value, in bytes or in the text form.
   */
  needsReseal(sealed: Uint8Array | string): boolean;
}

/** A sealer over configured keys: the current key seals, every key opens. */
export interface Keyring extends Sealer {
  /** The current key's id (16 hex digits): tells keys apart, says nothing of them. */
  readonly keyId: string;
  /**
   * The id of the key a value is sealed with, from its header.
   *
   * @returns 16 hex digits, or undefined when the value is not in this format.
   */
  keyIdOf(sealed: Uint8Array | string): string | undefined;
}

/** Options of a sealer. */
export interface SealerOptions {
  /** The largest plaintext sealed and sealed value opened; {@link MAX_SEALED_BYTES} by default. */
  maxBytes?: number;
}

/**
 * The id of a key: the first 8 bytes of HMAC-SHA256 of a fixed label under the key. It tells keys
 * apart; it gives nothing that helps find the key.
 *
 * @param key The key.
 * @returns 16 hex digits.
 */
export function keyIdOf(key: Uint8Array): string {
  return keyIdBytes(key).toString('hex');
}

function keyIdBytes(key: Uint8Array | KeyObject): Buffer {
  return createHmac('sha256', key).update(KEY_ID_LABEL).digest().subarray(0, KEY_ID_BYTES);
}

const toBytes = (value: Uint8Array | string): Buffer =>
  typeof value === 'string'
    ? Buffer.from(value, 'utf8')
    : Buffer.from(value.buffer, value.byteOffset, value.byteLength);

/** The text form of sealed bytes: base64url, no padding. */
export function toText(sealed: Uint8Array): string {
  return toBytes(sealed).toString('base64url');
}

/**
 * Sealed bytes from their text form.
 *
 * @throws {SealError} `format` when the text is not base64url.
 */
export function fromText(text: string): Buffer {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new SealError('format');
  return Buffer.from(text, 'base64url');
}

/** A sealed value's parts. */
interface Parts {
  readonly header: Buffer;
  readonly keyId: Buffer;
  readonly salt: Buffer | undefined;
}

function headerLength(flags: number): number {
  return 2 + KEY_ID_BYTES + (flags & FLAG_DERIVED ? SALT_BYTES : 0);
}

function parse(sealed: Uint8Array, maxBytes: number): Parts {
  const data = toBytes(sealed);
  if (data.length > maxBytes + 64) throw new SealError('too-large');
  const flags = data[1] ?? 0;
  const length = headerLength(flags);
  if (
    data.length < length + NONCE_BYTES + TAG_BYTES ||
    data[0] !== FORMAT_VERSION ||
    (flags & ~FLAG_DERIVED) !== 0
  ) {
    throw new SealError('format');
  }
  return {
    header: data.subarray(0, length),
    keyId: data.subarray(2, 2 + KEY_ID_BYTES),
    salt: flags & FLAG_DERIVED ? data.subarray(2 + KEY_ID_BYTES, length) : undefined,
  };
}

function headerOf(keyId: Buffer, salt: Buffer | undefined): Buffer {
  const flags = salt === undefined ? 0 : FLAG_DERIVED;
  return Buffer.concat(
    salt === undefined
      ? [Buffer.of(FORMAT_VERSION, flags), keyId]
      : [Buffer.of(FORMAT_VERSION, flags), keyId, salt],
  );
}

function encrypt(key: KeyObject, header: Buffer, plain: Buffer, aad: Aad, maxBytes: number): Buffer {
  if (plain.length > maxBytes) throw new SealError('too-large');
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.concat([DOMAIN, header, toBytes(aad)]));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([header, nonce, cipher.getAuthTag(), body]);
}

/**
 * Opens the value in `data` whose header is its first `length` bytes, with the whole additional
 * data given: nonce, tag and ciphertext are read where they lie, nothing of the value is copied.
 */
function decryptAt(key: KeyObject, data: Buffer, length: number, fullAad: Buffer): Buffer {
  try {
    // No authTagLength option (its checks cost more than the cipher): the tag set below is always
    // TAG_BYTES long, cut from a value whose length was checked.
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(length, length + NONCE_BYTES));
    decipher.setAAD(fullAad);
    decipher.setAuthTag(data.subarray(length + NONCE_BYTES, length + NONCE_BYTES + TAG_BYTES));
    const plain = decipher.update(data.subarray(length + NONCE_BYTES + TAG_BYTES));
    // GCM gives everything from update(); final() checks the tag and gives nothing more.
    decipher.final();
    return plain;
  } catch {
    throw new SealError('authentication');
  }
}

/** Whether `data` starts with `prefix`: compared in JS, cheaper than a call into C++ for a few bytes. */
function sameStart(data: Uint8Array, prefix: Uint8Array): boolean {
  for (let i = 0; i < prefix.length; i++) if (data[i] !== prefix[i]) return false;
  return true;
}

function checkKey(key: Uint8Array): KeyObject {
  if (key.length !== KEY_BYTES) throw new SealError('key');
  return createSecretKey(key);
}

/** The parts of {@link Sealer} every sealer derives from seal and open alike. */
function withText(
  seal: (plain: Buffer, aad: Aad) => Buffer,
  open: (sealed: Uint8Array, aad: Aad) => Buffer,
  needsReseal: (sealed: Uint8Array) => boolean,
): Sealer {
  const bytesOf = (sealed: Uint8Array | string) => {
    try {
      return typeof sealed === 'string' ? fromText(sealed) : sealed;
    } catch {
      return undefined;
    }
  };
  return {
    seal: (plain, aad) => seal(toBytes(plain), aad),
    sealText: (plain, aad) => toText(seal(toBytes(plain), aad)),
    open,
    openText: (sealed, aad) => open(fromText(sealed), aad),
    needsReseal(sealed) {
      const bytes = bytesOf(sealed);
      return bytes === undefined || needsReseal(bytes);
    },
  };
}

/**
 * A keyring: the current key seals, the current and the previous keys open (each value names its
 * key by id). After a rotation, values of a previous key open and {@link Sealer.needsReseal} says
 * so; seal them again and drop the previous key once none is left.
 *
 * @param current The key new values are sealed with ({@link KEY_BYTES} bytes).
 * @param previous Earlier keys, to open values sealed before a rotation.
 * @param options The size limit.
 * @returns The keyring.
 * @throws {SealError} `key` when a key is not {@link KEY_BYTES} bytes.
 */
export function createKeyring(
  current: Uint8Array,
  previous: readonly Uint8Array[] = [],
  options: SealerOptions = {},
): Keyring {
  const maxBytes = options.maxBytes ?? MAX_SEALED_BYTES;
  // One KeyObject per key for the life of the keyring: creating it per call costs more than the cipher.
  const currentKey = checkKey(current);
  const currentId = keyIdBytes(current);
  const header = headerOf(currentId, undefined);
  // Opening is on every read of a secret: each key's header and the additional data it starts
  // with are built once, and a value's key is found by comparing its id where it lies.
  const opening = [current, ...previous].map((raw, index) => {
    const key = index === 0 ? currentKey : checkKey(raw);
    const keyHeader = index === 0 ? header : headerOf(keyIdBytes(key), undefined);
    return { key, header: keyHeader, aadPrefix: Buffer.concat([DOMAIN, keyHeader]) };
  });
  const headerBytes = header.length;
  const idOf = (sealed: Uint8Array | string): string | undefined => {
    try {
      const parts = parse(typeof sealed === 'string' ? fromText(sealed) : sealed, maxBytes);
      return parts.salt === undefined ? parts.keyId.toString('hex') : undefined;
    } catch {
      return undefined;
    }
  };
  const sealer = withText(
    (plain, aad) => encrypt(currentKey, header, plain, aad, maxBytes),
    (sealed, aad) => {
      const data = toBytes(sealed);
      if (data.length > maxBytes + 64) throw new SealError('too-large');
      if (
        data.length < headerBytes + NONCE_BYTES + TAG_BYTES ||
        data[0] !== FORMAT_VERSION ||
        data[1] !== 0
      ) {
        // Not a keyring's value: parse says which (another format, or a derived key's).
        if (parse(data, maxBytes).salt !== undefined) throw new SealError('format');
      }
      const found = opening.find((entry) => sameStart(data, entry.header));
      if (found === undefined) throw new SealError('unknown-key');
      const extra = toBytes(aad);
      const fullAad = extra.length === 0 ? found.aadPrefix : Buffer.concat([found.aadPrefix, extra]);
      return decryptAt(found.key, data, headerBytes, fullAad);
    },
    (sealed) => idOf(sealed) !== currentId.toString('hex'),
  );
  return { ...sealer, keyId: currentId.toString('hex'), keyIdOf: idOf };
}

/**
 * A sealer whose key is derived for each value with HKDF-SHA256 from key material (a secret that
 * need not be a key: a password, an API key), a random salt stored in the value, and `info` (what
 * the key is for). Other material or other `info`, and the value does not open.
 *
 * @param material The key material.
 * @param info What the keys are for (HKDF's info, e.g. the file's format and owner).
 * @param options The size limit.
 * @returns The sealer; {@link Sealer.needsReseal} is true only for values not in this format.
 */
export function createDerivedSealer(
  material: Uint8Array | string,
  info: string,
  options: SealerOptions = {},
): Sealer {
  const maxBytes = options.maxBytes ?? MAX_SEALED_BYTES;
  const keyOf = (salt: Buffer) =>
    createSecretKey(Buffer.from(hkdfSync('sha256', material, salt, info, KEY_BYTES)));
  return withText(
    (plain, aad) => {
      const salt = randomBytes(SALT_BYTES);
      const key = keyOf(salt);
      return encrypt(key, headerOf(keyIdBytes(key), salt), plain, aad, maxBytes);
    },
    (sealed, aad) => {
      const parts = parse(sealed, maxBytes);
      if (parts.salt === undefined) throw new SealError('format');
      const key = keyOf(parts.salt);
      if (!keyIdBytes(key).equals(parts.keyId)) throw new SealError('unknown-key');
      return decryptAt(
        key,
        toBytes(sealed),
        parts.header.length,
        Buffer.concat([DOMAIN, parts.header, toBytes(aad)]),
      );
    },
    (sealed) => {
      try {
        return parse(sealed, maxBytes).salt === undefined;
      } catch {
        return true;
      }
    },
  );
}
