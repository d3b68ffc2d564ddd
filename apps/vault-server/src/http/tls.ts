/**
 * HTTPS served directly: the certificate and key files, read at start and again on SIGHUP, and
 * the rule that a non-loopback address is never served in plain HTTP unless explicitly allowed.
 *
 * @module
 */

import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { invalid } from '../errors.ts';

/** Where the certificate chain and the private key live (PEM). */
export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

/** The PEM texts given to `https.createServer` and `setSecureContext`. */
export interface TlsMaterial {
  readonly cert: string;
  readonly key: string;
}

/**
 * Reads the certificate and key.
 *
 * @param files The two files.
 * @returns Their contents.
 * @throws {VaultServerError} `invalid_request` naming the file that cannot be read or is not PEM.
 */
export async function readTlsFiles(files: TlsFiles): Promise<TlsMaterial> {
  const read = async (path: string, variable: string, marker: RegExp) => {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw invalid(
        `Cannot read ${variable} (${path}): ${(error as NodeJS.ErrnoException).code ?? 'error'}.`,
      );
    }
    if (!marker.test(text)) throw invalid(`${variable} (${path}) holds no PEM ${marker.source.slice(11)}.`);
    return text;
  };
  return {
    cert: await read(files.certFile, 'VAULTLINE_TLS_CERT', /-----BEGIN CERTIFICATE-----/),
    key: await read(files.keyFile, 'VAULTLINE_TLS_KEY', /-----BEGIN [A-Z ]*PRIVATE KEY-----/),
  };
}

/**
 * Tells whether a bind address only reaches this machine.
 *
 * @param host `VAULTLINE_HOST`.
 * @returns Whether it is loopback (`localhost`, 127.0.0.0/8, `::1`).
 */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./.test(bare);
  return false;
}

/**
 * Refuses to serve plain HTTP on an address other machines can reach, unless allowed.
 *
 * @param host The bind address.
 * @param tls Whether TLS is configured.
 * @param allowPlainHttp `VAULTLINE_ALLOW_PLAIN_HTTP`.
 * @throws {VaultServerError} `invalid_request` saying what to set.
 */
export function checkPlainHttp(host: string, tls: boolean, allowPlainHttp: boolean): void {
  if (tls || allowPlainHttp || isLoopback(host)) return;
  throw invalid(
    `Refusing to serve plain HTTP on ${host}, which other machines can reach: API keys and passwords would cross the network in clear. Set VAULTLINE_TLS_CERT and VAULTLINE_TLS_KEY to serve HTTPS, or VAULTLINE_ALLOW_PLAIN_HTTP=1 when a TLS-terminating proxy is in front.`,
  );
}
