/**
 * `@vaultline/sealer/testing`: writers of the formats the sealer replaced, for tests only: they
 * make values as the code before the sealer sealed them (the same algorithms, line for line), so
 * that a test proves they still open. Nothing in an app may write these formats. And
 * {@link sealErrorOf}, to check that an input is refused the way it should be.
 *
 * @module
 */

import { createCipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { SealError, type SealErrorCode } from './sealer.ts';

function gcm(key: Uint8Array, nonce: Buffer, plain: Uint8Array, aad: Uint8Array | undefined) {
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  if (aad !== undefined) cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return { body, tag: cipher.getAuthTag() };
}

/**
 * Seals as the vault server's secret box did (server box v1): `1 | nonce | tag | ciphertext`.
 *
 * @param key The master key.
 * @param plain The value.
 * @param aad The additional data, if any.
 */
export function sealLegacyBox(key: Uint8Array, plain: Uint8Array, aad?: Uint8Array): Buffer {
  const nonce = randomBytes(12);
  const { body, tag } = gcm(key, nonce, plain, aad);
  return Buffer.concat([Buffer.of(1), nonce, tag, body]);
}

/**
 * Seals as the Slack bot's link sealer did (link text v1): `v1.<key id>.<nonce>.<tag>.<ciphertext>`.
 *
 * @param key The link key.
 * @param plain The text.
 * @param context What it belongs to.
 */
export function sealLegacyLinkText(key: Uint8Array, plain: string, context: string): string {
  const nonce = randomBytes(12);
  const keyId = createHmac('sha256', key)
    .update('vaultline-slack-bot link key id')
    .digest('hex')
    .slice(0, 16);
  const aad = Buffer.from(`vaultline-slack-bot/v1/${context}`, 'utf8');
  const { body, tag } = gcm(key, nonce, Buffer.from(plain, 'utf8'), aad);
  return [
    'v1',
    keyId,
    nonce.toString('base64url'),
    tag.toString('base64url'),
    body.toString('base64url'),
  ].join('.');
}

/**
 * Seals as the sealed files of `@vaultline/protocol/node` (now `./node` here) did: base64 fields `salt`, `iv`, `tag`, `data`.
 *
 * @param text The text.
 * @param material The key material.
 * @param context The context (HKDF's info).
 * @param aad The additional data.
 */
export function sealLegacyFields(
  text: string,
  material: string | Buffer,
  context: string,
  aad: Buffer,
): { salt: string; iv: string; tag: string; data: string } {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const key = Buffer.from(hkdfSync('sha256', material, salt, context, 32));
  const { body, tag } = gcm(key, iv, Buffer.from(text, 'utf8'), aad);
  return {
    salt: salt.toString('base64'),
    iv: iv.toString('base64'),
    tag: tag.toString('base64'),
    data: body.toString('base64'),
  };
}

/**
 * Runs an open (or a seal) and tells how it ended: the code of the {@link SealError} it threw, or
 * `opened`. Any other error is thrown again: garbage must get a SealError, never another error.
 *
 * @param open What to run.
 * @returns The code, or `opened`.
 */
export function sealErrorOf(open: () => unknown): SealErrorCode | 'opened' {
  try {
    open();
    return 'opened';
  } catch (error) {
    if (error instanceof SealError) return error.code;
    throw error;
  }
}
