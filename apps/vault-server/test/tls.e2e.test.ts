import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVaultServer } from '../src/start-vault-server.ts';

const run = promisify(execFile);

/** A self-signed certificate for 127.0.0.1, made by openssl at test time (never committed). */
async function makeCertificate(dir: string, name: string): Promise<{ cert: string; key: string }> {
  const cert = join(dir, `${name}.cert.pem`);
  const key = join(dir, `${name}.key.pem`);
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '1',
    '-subj',
    `/CN=vaultline test ${name}`,
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ]);
  return { cert, key };
}

/** Fetches a path over HTTPS trusting the given CAs; answers the status and the server's certificate. */
function get(
  url: string,
  path: string,
  ca: string[],
): Promise<{ status: number; fingerprint: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { ca, agent: false }, (res) => {
      const fingerprint = (res.socket as import('node:tls').TLSSocket).getPeerX509Certificate()
        ?.fingerprint256;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          fingerprint: fingerprint ?? '',
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

const fingerprintOf = async (file: string) => new X509Certificate(await readFile(file)).fingerprint256;

describe('HTTPS', () => {
  let dir: string;
  let first: { cert: string; key: string };
  let second: { cert: string; key: string };
  let cas: string[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vaultline-tls-'));
    first = await makeCertificate(dir, 'first');
    second = await makeCertificate(dir, 'second');
    cas = [await readFile(first.cert, 'utf8'), await readFile(second.cert, 'utf8')];
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('serves HTTPS and takes a new certificate on reload, keeping the old one when the new files are bad', async () => {
    const cert = join(dir, 'live.cert.pem');
    const key = join(dir, 'live.key.pem');
    await writeFile(cert, await readFile(first.cert));
    await writeFile(key, await readFile(first.key));
    const lines: string[] = [];
    const server = await startVaultServer({
      host: '127.0.0.1',
      port: 0,
      tlsCert: cert,
      tlsKey: key,
      log: { write: (line: string) => lines.push(line) },
    });
    try {
      expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const before = await get(server.url, '/healthz', cas);
      expect(before.status).toBe(200);
      expect(before.fingerprint).toBe(await fingerprintOf(first.cert));

      await writeFile(cert, await readFile(second.cert));
      await writeFile(key, await readFile(second.key));
      await server.reloadTls();
      const after = await get(server.url, '/healthz', cas);
      expect(after.fingerprint).toBe(await fingerprintOf(second.cert));

      await writeFile(cert, 'not a certificate');
      await expect(server.reloadTls()).rejects.toThrow(/VAULTLINE_TLS_CERT/);
      expect((await get(server.url, '/healthz', cas)).fingerprint).toBe(await fingerprintOf(second.cert));
      expect(lines.join('\n')).toMatch(/tls certificate reload failed/);
      expect(lines.join('\n')).not.toMatch(/PRIVATE KEY/);
    } finally {
      await server.close();
    }
  });

  it('reloads the certificate on SIGHUP', async () => {
    const cert = join(dir, 'hup.cert.pem');
    const key = join(dir, 'hup.key.pem');
    await writeFile(cert, await readFile(first.cert));
    await writeFile(key, await readFile(first.key));
    const child: ChildProcess = spawn(
      process.execPath,
      [join(import.meta.dirname, 'support/tls-child.ts'), cert, key],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const logged: string[] = [];
    createInterface({ input: child.stderr! }).on('line', (line) => logged.push(line));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', resolve);
        child.once('exit', () => reject(new Error('the TLS child exited before listening')));
      });
      const { url } = JSON.parse(line) as { url: string };
      expect((await get(url, '/healthz', cas)).fingerprint).toBe(await fingerprintOf(first.cert));
      await writeFile(cert, await readFile(second.cert));
      await writeFile(key, await readFile(second.key));
      child.kill('SIGHUP');
      const expected = await fingerprintOf(second.cert);
      const until = Date.now() + 20_000;
      let seen = '';
      while (Date.now() < until) {
        seen = (await get(url, '/healthz', cas)).fingerprint;
        if (seen === expected) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(seen).toBe(expected);
      expect(child.exitCode).toBeNull();
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    expect(logged.join('\n')).toMatch(/tls certificate reloaded/);
  });

  it('refuses plain HTTP on a non-loopback address unless allowed, with a clear message', async () => {
    await expect(startVaultServer({ host: '0.0.0.0', port: 0, log: { write: () => {} } })).rejects.toThrow(
      /Refusing to serve plain HTTP on 0\.0\.0\.0.*VAULTLINE_TLS_CERT.*VAULTLINE_ALLOW_PLAIN_HTTP=1/,
    );
    const allowed = await startVaultServer({
      host: '0.0.0.0',
      port: 0,
      allowPlainHttp: true,
      log: { write: () => {} },
    });
    await allowed.close();
    const withTls = await startVaultServer({
      host: '0.0.0.0',
      port: 0,
      tlsCert: first.cert,
      tlsKey: first.key,
      log: { write: () => {} },
    });
    expect((await get(`https://127.0.0.1:${withTls.port}`, '/healthz', cas)).status).toBe(200);
    await withTls.close();
  });
});
