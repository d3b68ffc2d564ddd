import { jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIssuerKeys, IssuerUnavailableError } from './issuer-keys.ts';
import { startTestIssuer, type TestIssuer } from './test-issuer.ts';

describe('createIssuerKeys', () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await startTestIssuer();
  });
  afterAll(() => issuer.close());

  /** A cache on a clock the test moves. */
  function keysAt(options: { timeoutMs?: number } = {}) {
    const clock = { now: 1_000_000 };
    const keys = createIssuerKeys({
      now: () => clock.now,
      maxAgeMs: 600_000,
      staleMaxAgeMs: 3_600_000,
      refetchCooldownMs: 30_000,
      ...options,
    });
    const verify = async () => {
      const token = await issuer.sign({ aud: 'a' });
      return jwtVerify(token, keys.lookup(issuer.url, undefined), { issuer: issuer.url, audience: 'a' });
    };
    return { clock, verify };
  }

  it('discovers the key set once and answers from the cache while it is fresh', async () => {
    const before = { ...issuer.fetches };
    const { verify } = keysAt();
    for (let i = 0; i < 5; i++) await verify();
    expect(issuer.fetches).toEqual({ discovery: before.discovery + 1, jwks: before.jwks + 1 });
  });

  it('picks up a rotated key with one fetch once the cooldown is over, and not before', async () => {
    const { clock, verify } = keysAt();
    await verify();
    await issuer.rotate();
    const before = issuer.fetches.jwks;
    await expect(verify()).rejects.toThrow(/no applicable key/i);
    expect(issuer.fetches.jwks).toBe(before);
    clock.now += 30_000;
    await verify();
    expect(issuer.fetches.jwks).toBe(before + 1);
  });

  it('keeps a stale key set in use while the issuer is down, and fails once it is too old', async () => {
    const { clock, verify } = keysAt();
    await verify();
    issuer.setMode('down');
    try {
      clock.now += 700_000;
      await verify();
      clock.now += 3_600_000;
      await expect(verify()).rejects.toBeInstanceOf(IssuerUnavailableError);
    } finally {
      issuer.setMode('up');
    }
  });

  it('keeps a stale key set in use while the issuer is slow, waiting no longer than its timeout', async () => {
    const { clock, verify } = keysAt({ timeoutMs: 200 });
    await verify();
    issuer.setMode('slow');
    try {
      clock.now += 700_000;
      await verify();
    } finally {
      issuer.setMode('up');
      issuer.release();
    }
  });

  it('says the issuer is unavailable when it has no key set yet', async () => {
    const { verify } = keysAt({ timeoutMs: 200 });
    issuer.setMode('down');
    try {
      await expect(verify()).rejects.toThrow(/discovery document answered HTTP 503/);
    } finally {
      issuer.setMode('up');
    }
  });
});
