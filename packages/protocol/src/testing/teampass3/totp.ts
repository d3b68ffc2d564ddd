/**
 * RFC 6238 time-based one-time passwords (RFC 4226 HOTP over a time counter), as TeamPass computes
 * them for `item/getOtp`, and the secret normalisation it applies on write.
 *
 * @module
 */

import { createHmac } from 'node:crypto';

/** A TOTP profile. */
export interface TotpProfile {
  /** The Base32 secret, normalised (upper case, no spaces, hyphens or padding). */
  secret: string;
  /** `sha1`, `sha256` or `sha512`. */
  algorithm: 'sha1' | 'sha256' | 'sha512';
  /** 6 or 8. */
  digits: number;
  /** The period in seconds, 1 to 86400. */
  period: number;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/**
 * Decodes RFC 4648 Base32.
 *
 * @param secret The normalised secret.
 * @returns The bytes, or `undefined` when a character is outside the alphabet.
 */
export function decodeBase32(secret: string): Buffer | undefined {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of secret) {
    const index = BASE32.indexOf(char);
    if (index < 0) return undefined;
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/**
 * Normalises a secret the way TeamPass does (`normalizeItemTotpSecret`): spaces and hyphens
 * dropped, upper case, `=` padding trimmed.
 *
 * @param secret The secret as typed.
 * @returns The secret.
 */
export function normalizeTotpSecret(secret: string): string {
  return secret
    .replace(/[\s-]+/g, '')
    .trim()
    .replace(/^=+|=+$/g, '')
    .toUpperCase();
}

/**
 * Validates and normalises a TOTP configuration (a Base32 secret or an `otpauth://totp/` URI),
 * with TeamPass's messages.
 *
 * @param input The secret or URI.
 * @param algorithm The algorithm for a bare secret.
 * @param digits The code length for a bare secret.
 * @param period The period for a bare secret.
 * @returns The profile.
 * @throws {Error} With TeamPass's words when the configuration is unusable.
 */
export function normalizeTotp(input: string, algorithm: string, digits: number, period: number): TotpProfile {
  const trimmed = input.trim();
  if (trimmed === '') throw new Error('The TOTP secret cannot be empty.');
  let secret = trimmed;
  if (trimmed.toLowerCase().startsWith('otpauth://')) {
    let url: URL;
    try {
      url = new URL(trimmed);
    } catch {
      throw new Error('The TOTP secret or provisioning URI is invalid.');
    }
    if (url.host.toLowerCase() !== 'totp') throw new Error('Only TOTP provisioning URIs are supported.');
    secret = url.searchParams.get('secret') ?? '';
    algorithm = url.searchParams.get('algorithm') ?? 'sha1';
    digits = Number(url.searchParams.get('digits') ?? 6);
    period = Number(url.searchParams.get('period') ?? 30);
  }
  const alg = algorithm.trim().toLowerCase();
  if (alg !== 'sha1' && alg !== 'sha256' && alg !== 'sha512')
    throw new Error('The TOTP algorithm must be SHA-1, SHA-256, or SHA-512.');
  if (digits !== 6 && digits !== 8) throw new Error('The TOTP code length must be 6 or 8 digits.');
  if (!(period >= 1 && period <= 86400))
    throw new Error('The TOTP period must be between 1 and 86400 seconds.');
  const normalized = normalizeTotpSecret(secret);
  const bytes = decodeBase32(normalized);
  if (normalized === '' || !bytes || bytes.length === 0)
    throw new Error('The TOTP secret or provisioning URI is invalid.');
  return { secret: normalized, algorithm: alg, digits, period };
}

/**
 * The code of a profile at a time, and the seconds it stays valid.
 *
 * @param profile The profile.
 * @param nowSeconds The time, in seconds since the epoch.
 * @returns The code (zero-padded) and `expiresIn`.
 */
export function totpAt(profile: TotpProfile, nowSeconds: number): { code: string; expiresIn: number } {
  const key = decodeBase32(profile.secret) ?? Buffer.alloc(0);
  const counter = Math.floor(nowSeconds / profile.period);
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const digest = createHmac(profile.algorithm, key).update(message).digest();
  const offset = digest[digest.length - 1]! & 0x0f;
  const binary = digest.readUInt32BE(offset) & 0x7fffffff;
  const code = String(binary % 10 ** profile.digits).padStart(profile.digits, '0');
  return { code, expiresIn: profile.period - (nowSeconds % profile.period) };
}
