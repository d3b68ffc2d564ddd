import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserFetch } from '../../test/browser-fetch.ts';
import { isVaultError, VaultError } from '../errors.ts';
import { createWireClient } from '../vault/wire-client.ts';
import { explainNetworkFailure, withNetworkReason } from './reachability.ts';

const PAGE = 'http://127.0.0.1:1';
const KEY = 'reachability-test-key-0123456789';

/** A server without CORS that answers like a vault: what a vault without VAULTLINE_CORS_ORIGINS is. */
let server: Server;
let url: string;
/** A port where nothing listens. */
let downUrl: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    response.writeHead(request.url?.includes('/read/userfolders/') ? 200 : 404, {
      'content-type': 'application/json',
    });
    response.end('[]');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  downUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise((resolve) => closed.close(resolve));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('explainNetworkFailure', () => {
  it('says cors when the server answers a no-cors request, with both origins', async () => {
    const diagnosis = await explainNetworkFailure(url, {
      fetch: browserFetch(PAGE),
      requestOrigin: PAGE,
      timeoutMs: 2000,
    });
    expect(diagnosis).toEqual({ reason: 'cors', requestOrigin: PAGE, serverOrigin: url });
  });

  it('says unreachable when nothing answers', async () => {
    const diagnosis = await explainNetworkFailure(`${downUrl}/vault`, {
      fetch: browserFetch(PAGE),
      requestOrigin: PAGE,
      timeoutMs: 2000,
    });
    expect(diagnosis?.reason).toBe('unreachable');
  });

  it('says mixed-content for an https page and a plain http server that is not loopback, without a probe', async () => {
    let probed = false;
    const diagnosis = await explainNetworkFailure('http://vault.example.com', {
      fetch: async () => {
        probed = true;
        return new Response(null);
      },
      requestOrigin: 'https://vscode.dev',
      timeoutMs: 2000,
    });
    expect(diagnosis).toEqual({
      reason: 'mixed-content',
      requestOrigin: 'https://vscode.dev',
      serverOrigin: 'http://vault.example.com',
    });
    expect(probed).toBe(false);
  });

  it('explains nothing outside browsers and for same-origin requests', async () => {
    const options = { fetch: browserFetch(PAGE), timeoutMs: 2000 };
    expect(await explainNetworkFailure(url, { ...options, requestOrigin: undefined })).toBeUndefined();
    expect(await explainNetworkFailure(`${url}/x`, { ...options, requestOrigin: url })).toBeUndefined();
  });
});

describe('withNetworkReason', () => {
  it('keeps the code, names both origins and keeps the first error as the cause', () => {
    const first = new VaultError('network', 'readItems: could not reach the vault (Failed to fetch).', {
      endpoint: 'readItems',
      url: 'http://vault/api/index.php/read/items/1',
    });
    const explained = withNetworkReason(first, {
      reason: 'cors',
      requestOrigin: 'https://vscode.dev',
      serverOrigin: 'https://vault.example.com',
    });
    expect(explained.code).toBe('network');
    expect(explained.reason).toBe('cors');
    expect(explained.requestOrigin).toBe('https://vscode.dev');
    expect(explained.message).toBe(
      'readItems: the vault at https://vault.example.com answers, but does not allow requests from https://vscode.dev (CORS).',
    );
    expect(explained.cause).toBe(first);
    expect(explained.toJSON()).toMatchObject({ reason: 'cors', requestOrigin: 'https://vscode.dev' });
  });
});

describe('a client in a browser', () => {
  it('tells a CORS refusal of a running vault apart, without the key in the error', async () => {
    const client = createWireClient({
      baseUrl: url,
      auth: KEY,
      fetch: browserFetch(PAGE),
      requestOrigin: PAGE,
      retry: { retries: 0 },
    });
    const error = await client.readUserFolders({ login: 'alice' }).catch((thrown: unknown) => thrown);
    expect(isVaultError(error, 'network')).toBe(true);
    const vaultError = error as VaultError;
    expect(vaultError.reason).toBe('cors');
    expect(vaultError.requestOrigin).toBe(PAGE);
    expect(vaultError.message).toContain(`does not allow requests from ${PAGE}`);
    expect(JSON.stringify(vaultError.toJSON())).not.toContain(KEY);
    expect(vaultError.message).not.toContain(KEY);
  });

  it('says unreachable when the vault is down', async () => {
    const client = createWireClient({
      baseUrl: downUrl,
      auth: KEY,
      fetch: browserFetch(PAGE),
      requestOrigin: PAGE,
      retry: { retries: 0 },
    });
    const error = await client.readUserFolders({ login: 'alice' }).catch((thrown: unknown) => thrown);
    expect(isVaultError(error, 'network') && error.reason).toBe('unreachable');
  });

  it('leaves a network error unexplained outside browsers', async () => {
    const client = createWireClient({ baseUrl: downUrl, auth: KEY, retry: { retries: 0 } });
    const error = await client.readUserFolders({ login: 'alice' }).catch((thrown: unknown) => thrown);
    expect(isVaultError(error, 'network')).toBe(true);
    expect((error as VaultError).reason).toBeUndefined();
  });

  it('works once the server allows the origin', async () => {
    // It identifies itself as TeamPass 2 does (its missing-key error): the key may go in the URL.
    const allowing = createServer((request, response) => {
      const identification = request.url?.endsWith('/info/version');
      response.writeHead(identification ? 500 : 200, {
        'content-type': 'application/json',
        'access-control-allow-origin': PAGE,
      });
      response.end(identification ? '{"err":"Something happen ... but what ?"}' : '[]');
    });
    await new Promise<void>((resolve) => allowing.listen(0, '127.0.0.1', resolve));
    try {
      const client = createWireClient({
        baseUrl: `http://127.0.0.1:${(allowing.address() as AddressInfo).port}`,
        auth: KEY,
        fetch: browserFetch(PAGE),
        requestOrigin: PAGE,
        retry: { retries: 0 },
      });
      expect(await client.readUserFolders({ login: 'alice' })).toEqual([]);
    } finally {
      await new Promise((resolve) => allowing.close(resolve));
    }
  });
});
