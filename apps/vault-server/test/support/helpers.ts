import { request } from 'node:http';
import { VaultError } from '@vaultline/protocol';
import { createWireClient, type WireClient } from '@vaultline/protocol/wire';
import type { PostgresCluster } from '@vaultline/store/testing';
import { expect } from 'vitest';
import { operatorActor } from '../../src/store/actor.ts';
import { startTestVault, type TestVault, type TestVaultOptions } from '../../src/testing.ts';

/** The operator tests administer as (reading the audit log, for one). */
export const TEST_OPERATOR = operatorActor('test', 'test');

/** The stores every core test runs on. */
export const STORES = ['pglite', 'postgres'] as const;
export type StoreKind = (typeof STORES)[number];

/**
 * A value a suite's `beforeAll` sets, as hooks and tests read it: reading it while the suite is
 * still collected (before the hook ran) is a mistake in the test, said with `what`.
 *
 * @param value The value, undefined until the hook ran.
 * @param what What it is, for the error.
 * @returns The value.
 */
export function setByBeforeAll<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is read before its beforeAll ran`);
  return value;
}

/** Starts a vault on the given store. */
export async function startVaultOn(
  kind: StoreKind,
  cluster: PostgresCluster | undefined,
  options: TestVaultOptions = {},
): Promise<TestVault> {
  if (kind === 'postgres') {
    if (!cluster) throw new Error('no cluster');
    return startTestVault({ ...options, databaseUrl: await cluster.createDatabase() });
  }
  return startTestVault(options);
}

/** A client of the vault on a key. */
export function clientOf(vault: TestVault, apiKey = vault.adminKey): WireClient {
  return createWireClient({ baseUrl: vault.url, auth: apiKey, retry: { retries: 0 } });
}

/** Expects a promise to fail with a VaultError of that code (and status). */
export async function expectVaultError(
  promise: Promise<unknown>,
  code: string,
  status?: number,
): Promise<VaultError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(VaultError);
    const vaultError = error as VaultError;
    expect({ code: vaultError.code, status: vaultError.status }).toEqual({
      code,
      status: status ?? vaultError.status,
    });
    return vaultError;
  }
  throw new Error(`Expected a ${code} error, but the call succeeded.`);
}

/** The answer of a raw request. */
export interface RawAnswer {
  status: number;
  contentType: string;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * Sends a request with the path exactly as given (no URL normalisation, no percent-encoding).
 */
export function rawRequest(
  baseUrl: string,
  path: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: Buffer | string;
    agent?: import('node:http').Agent;
    localAddress?: string;
  } = {},
): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: options.method ?? 'GET',
        path,
        headers: options.headers,
        agent: options.agent,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
        insecureHTTPParser: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
            headers: res.headers,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** Expects a JSON error answer `{"err","code"}` with that status and code. */
export function expectJsonError(
  answer: RawAnswer,
  status: number,
  code: string,
): { err: string; code: string } {
  expect(answer.status).toBe(status);
  expect(answer.contentType).toMatch(/application\/json/);
  const body = JSON.parse(answer.body) as { err: string; code: string };
  expect(typeof body.err).toBe('string');
  expect(body.code).toBe(code);
  return body;
}

/** Expects none of the secrets in any captured log line. */
export function expectNoSecrets(lines: readonly string[], secrets: readonly string[]): void {
  expect(lines.length).toBeGreaterThan(0);
  const joined = lines.join('\n');
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    expect(joined.includes(secret), `a log line contains a secret (${secret.slice(0, 3)}…)`).toBe(false);
    expect(joined.includes(encodeURIComponent(secret)), 'a log line contains a secret, percent-encoded').toBe(
      false,
    );
  }
  expect(joined).not.toMatch(/vlk_[A-Za-z0-9_-]{20,}/);
  expect(joined).not.toMatch(/\/add\/item\/|\/update\/item\//);
}
