import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { memoryVaultForSuite } from '../../test/support/memory-vault.ts';
import { operatorActor } from '../store/actor.ts';

const OPERATOR = operatorActor('test', 'test');

import type { ApiRequest } from './api-call.ts';
import { UNKNOWN_ADDRESS } from './app-env.ts';
import { INTERNAL_ERROR, toApiError } from './error-mapping.ts';
import { createKeyCheck, keyOf, type QueryKeyPolicy } from './key-check.ts';
import { createLimiters } from './limits.ts';

describe('keyOf', () => {
  it('reads the bearer header, else the apikey query parameter', () => {
    expect(keyOf('Bearer vlk_a', '/x', 'accept')).toBe('vlk_a');
    expect(keyOf('bearer   vlk_a', '/x', 'accept')).toBe('vlk_a');
    expect(keyOf(undefined, '/x?apikey=vlk_b', 'accept')).toBe('vlk_b');
    expect(keyOf('Bearer vlk_a', '/x?apikey=vlk_b', 'accept')).toBe('vlk_a');
  });

  it('refuses a missing, malformed or (when told) URL key', () => {
    expect(() => keyOf(undefined, '/x', 'accept')).toThrow(/Missing API key/);
    expect(() => keyOf(undefined, '/x?apikey=', 'accept')).toThrow(/Missing API key/);
    expect(() => keyOf('Basic abc', '/x', 'accept')).toThrow(/Authorization: Bearer <key>/);
    expect(() => keyOf('Bearer', '/x', 'accept')).toThrow(/Authorization: Bearer <key>/);
    expect(() => keyOf(undefined, '/x?apikey=vlk_b', 'refuse')).toThrow(/refuses API keys in the URL/);
    expect(() => keyOf('Bearer vlk_a', '/x?apikey=vlk_b', 'refuse')).toThrow(/refuses API keys in the URL/);
  });
});

describe('keyCheck', () => {
  const memory = memoryVaultForSuite();
  let key: string;

  beforeAll(async () => {
    key = await memory.vault.adminAs(OPERATOR).createKey({ label: 'key-check', allowIps: ['10.0.0.0/8'] });
  });

  /** Checks a request as the pipeline would, answering the key label or the error's status. */
  async function checkWith(queryKeys: QueryKeyPolicy) {
    const limiters = createLimiters(memory.vault.db, { rateLimitPerMinute: 1000, failedKeyLimit: 2 });
    const check = createKeyCheck({
      ctx: memory.vault.ctx,
      audit: memory.audit,
      failedKeys: limiters.failedKeys,
      queryKeys,
    });
    return async (target: string, headers: Record<string, string> = {}, address = '10.0.0.1') => {
      const request: ApiRequest = {
        method: 'GET',
        target,
        header: (name) => headers[name],
        socketAddress: address,
        body: () => Readable.from([]),
      };
      try {
        return { status: 200, text: (await check(request, address)).principal.keyLabel };
      } catch (error) {
        const mapped = toApiError(error) ?? INTERNAL_ERROR;
        return { status: mapped.status, text: JSON.stringify(mapped.body), headers: mapped.headers };
      }
    };
  }

  it('sets the principal of a valid key, from the header or the URL', async () => {
    const check = await checkWith('accept');
    expect((await check('/', { authorization: `Bearer ${key}` })).text).toBe('key-check');
    expect((await check(`/?apikey=${key}`)).text).toBe('key-check');
    expect((await check(`/?apikey=${key}`, {}, '192.0.2.1')).status).toBe(403);
    // A client whose socket closed before its address was read is no address the key allows.
    expect((await check(`/?apikey=${key}`, {}, UNKNOWN_ADDRESS)).status).toBe(403);
  });

  it('locks out failing keys past the limit but lets the valid key through', async () => {
    const check = await checkWith('accept');
    const from = (k: string) => check('/', { authorization: `Bearer ${k}` }, '10.9.9.9');
    expect((await from('vlk_wrong1')).status).toBe(401);
    expect((await from('vlk_wrong2')).status).toBe(401);
    const locked = await from('vlk_wrong3');
    expect(locked.status).toBe(429);
    expect(Number(locked.headers?.['retry-after'])).toBeGreaterThan(0);
    expect((await from(key)).status).toBe(200);
    expect((await from('vlk_wrong4')).status).toBe(429);
    await memory.audit.flush();
    const failures = await memory.vault.adminAs(OPERATOR).listAudit({ limit: 50, action: 'auth/failed' });
    expect(failures.filter((entry) => entry.address === '10.9.9.9')).toHaveLength(2);
  });

  it('refuses URL keys when told to', async () => {
    const check = await checkWith('refuse');
    const answer = await check(`/?apikey=${key}`);
    expect(answer.status).toBe(401);
    expect(answer.text).not.toContain(key);
    expect((await check('/', { authorization: `Bearer ${key}` })).status).toBe(200);
  });
});
