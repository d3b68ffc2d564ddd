/**
 * A local OIDC issuer for tests: on 127.0.0.1, it serves a discovery document and a JWKS and signs
 * tokens with keys jose generates, as GitHub's, GitLab's or a cluster's issuer would. It can rotate
 * its key, go down or answer slowly, and count what it served; and it signs the tokens an attacker
 * would bring (`alg: none`, HS256 with the public key's PEM as the secret, a key it never
 * published).
 *
 * @module
 */

import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

/** How the issuer answers its key set: as it should, with 503, or not until {@link TestIssuer.release}. */
export type IssuerMode = 'up' | 'down' | 'slow';

/** A running test issuer. */
export interface TestIssuer {
  /** Its URL: the `iss` of its tokens. */
  readonly url: string;
  /** How many times its key set and its discovery document were fetched. */
  readonly fetches: { jwks: number; discovery: number };
  /**
   * Signs a token with its current key (RS256), `iss` set to its URL, `iat` now, `exp` in 5
   * minutes and a random `jti` unless the claims say otherwise.
   */
  sign(claims: JWTPayload, options?: { kid?: string; unpublished?: boolean }): Promise<string>;
  /** A token with `alg: none` and no signature. */
  unsigned(claims: JWTPayload): string;
  /** A token signed HS256 with the PEM of its public key as the secret. */
  hmacWithPublicKey(claims: JWTPayload): Promise<string>;
  /** Publishes a new key and signs with it from now on (the old one stays published). */
  rotate(): Promise<void>;
  /** How the key set is answered. */
  setMode(mode: IssuerMode): void;
  /** Answers the requests held by `slow`. */
  release(): void;
  close(): Promise<void>;
}

interface SigningKey {
  kid: string;
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  publicJwk: JWK;
  pem: string;
}

async function newKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  return {
    kid,
    privateKey,
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' },
    pem: await exportSPKI(publicKey),
  };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * Starts a test issuer on 127.0.0.1.
 *
 * @returns The issuer.
 */
export async function startTestIssuer(): Promise<TestIssuer> {
  let generation = 1;
  const published: SigningKey[] = [await newKey('k1')];
  const stranger = await newKey('k1');
  let mode: IssuerMode = 'up';
  let held: ServerResponse[] = [];
  const fetches = { jwks: 0, discovery: 0 };
  const json = (res: ServerResponse, body: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  let url = '';
  const server = createServer((req, res) => {
    if (req.url === '/.well-known/openid-configuration') {
      fetches.discovery++;
      if (mode === 'down') return void res.writeHead(503).end();
      if (mode === 'slow') return void held.push(res);
      return json(res, {
        issuer: url,
        jwks_uri: `${url}/jwks`,
        id_token_signing_alg_values_supported: ['RS256'],
        response_types_supported: ['id_token'],
        subject_types_supported: ['public'],
      });
    }
    if (req.url === '/jwks') {
      fetches.jwks++;
      if (mode === 'down') return void res.writeHead(503).end();
      if (mode === 'slow') return void held.push(res);
      return json(res, { keys: published.map((key) => key.publicJwk) });
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const current = () => published.at(-1)!;
  const withDefaults = (claims: JWTPayload): JWTPayload => {
    const now = Math.floor(Date.now() / 1000);
    return { iss: url, iat: now, exp: now + 300, jti: randomUUID(), ...claims };
  };

  const release = () => {
    const waiting = held;
    held = [];
    for (const res of waiting) res.writeHead(503).end();
  };
  return {
    url,
    fetches,
    async sign(claims, options = {}) {
      const key = options.unpublished ? stranger : current();
      return new SignJWT(withDefaults(claims))
        .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: options.kid ?? key.kid })
        .sign(key.privateKey);
    },
    unsigned(claims) {
      return `${b64({ alg: 'none', typ: 'JWT' })}.${b64(withDefaults(claims))}.`;
    },
    async hmacWithPublicKey(claims) {
      return new SignJWT(withDefaults(claims))
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: current().kid })
        .sign(new TextEncoder().encode(current().pem));
    },
    async rotate() {
      published.push(await newKey(`k${++generation}`));
    },
    setMode(next) {
      mode = next;
    },
    release,
    async close() {
      release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
