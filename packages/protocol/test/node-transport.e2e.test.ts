// The transport's exchange over node:http and node:https (src/transport/node-exchange.ts), its
// default on Node: against real servers on 127.0.0.1, what fetch did for it (redirects, compressed
// answers, the CA store with NODE_EXTRA_CA_CERTS), without touching Node's fetch.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTransport, platformFetch, type TransportRequest } from '../src/transport/transport.ts';

/** What a server saw of one request. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

const servers: Server[] = [];

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/** A server that records what it is sent and answers with `handler`. */
async function startServer(handler: Handler): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      handler(request, response, body);
    });
  });
  return { url: await listen(server), seen };
}

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const transport = createTransport({
  timeoutMs: 2000,
  retries: 0,
  retryDelayMs: 1,
  maxResponseBytes: 1024 * 1024,
  redact: (text) => text,
});

function request(url: string, more: Partial<TransportRequest> = {}): TransportRequest {
  return {
    endpoint: 'readItems',
    operation: 'read/items',
    method: 'GET',
    url,
    displayUrl: url,
    headers: {},
    read: true,
    ...more,
  };
}

/** Reads an answer as its status, a header and its text. */
const asText = {
  read: (answer: { status: number; headers: { get(name: string): string | null }; bytes: Uint8Array }) => ({
    status: answer.status,
    location: answer.headers.get('location'),
    text: new TextDecoder().decode(answer.bytes),
    plain: Object.getPrototypeOf(answer.bytes) === Uint8Array.prototype,
  }),
};

describe('the transport on Node, by default', () => {
  const fetchBefore = globalThis.fetch;
  afterEach(() => {
    globalThis.fetch = fetchBefore;
  });

  it('sends over node:http, without touching the global fetch', async () => {
    const { url, seen } = await startServer((_, response) => response.end('hello'));
    globalThis.fetch = () => Promise.reject(new Error('the global fetch was used'));
    const answer = await transport.send(request(`${url}/a`, { headers: { 'X-Key': 'k' } }), asText);
    expect(answer).toEqual({ status: 200, location: null, text: 'hello', plain: true });
    expect(seen[0]!.headers['x-key']).toBe('k');
  });

  it('passes a given fetch, and the platform fetch resolves to Node HTTP', async () => {
    const { url } = await startServer((_, response) => response.end('hello'));
    const calls: string[] = [];
    const viaFetch = createTransport({
      fetch: (input, init) => {
        calls.push(String(input));
        return fetchBefore(input, init);
      },
      timeoutMs: 2000,
      retries: 0,
      retryDelayMs: 1,
      maxResponseBytes: 1024,
      redact: (text) => text,
    });
    await viaFetch.send(request(`${url}/given`), asText);
    expect(calls).toEqual([`${url}/given`]);
    globalThis.fetch = () => Promise.reject(new Error('the global fetch was used'));
    const viaPlatform = createTransport({
      fetch: platformFetch,
      timeoutMs: 2000,
      retries: 0,
      retryDelayMs: 1,
      maxResponseBytes: 1024,
      redact: (text) => text,
    });
    expect((await viaPlatform.send(request(`${url}/platform`), asText)).text).toBe('hello');
  });

  it('decodes a gzip answer, and counts it decoded against the limit', async () => {
    const text = 'x'.repeat(4000);
    const { url, seen } = await startServer((_, response) => {
      response.writeHead(200, { 'content-encoding': 'gzip' });
      response.end(gzipSync(text));
    });
    expect((await transport.send(request(url), asText)).text).toBe(text);
    expect(seen[0]!.headers['accept-encoding']).toContain('gzip');
    const small = createTransport({
      timeoutMs: 2000,
      retries: 0,
      retryDelayMs: 1,
      maxResponseBytes: 1000,
      redact: (words) => words,
    });
    await expect(small.send(request(url), asText)).rejects.toMatchObject({ code: 'too_large' });
  });

  it('follows redirects as fetch does, and drops credentials on another origin', async () => {
    const other = await startServer((_, response) => response.end('other'));
    const { url, seen } = await startServer((req, response) => {
      const to = { '/same': [307, '/final'], '/away': [302, `${other.url}/there`], '/post': [303, '/final'] }[
        req.url ?? ''
      ] as [number, string] | undefined;
      if (to) response.writeHead(to[0], { location: to[1] }).end();
      else response.end(`final ${req.method}`);
    });
    const auth = { authorization: 'Bearer t0ken', 'x-api-key': 'k' };
    expect((await transport.send(request(`${url}/same`, { headers: auth }), asText)).text).toBe('final GET');
    expect(seen.at(-1)!.headers.authorization).toBe('Bearer t0ken');

    expect((await transport.send(request(`${url}/away`, { headers: auth }), asText)).text).toBe('other');
    expect(other.seen[0]!.headers.authorization).toBeUndefined();
    expect(other.seen[0]!.url).toBe('/there');

    const posted = await transport.send(
      request(`${url}/post`, {
        method: 'POST',
        body: 'a=1',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        read: false,
      }),
      asText,
    );
    expect(posted.text).toBe('final GET');
    expect(seen.at(-1)).toMatchObject({ method: 'GET', body: '' });
    expect(seen.at(-1)!.headers['content-type']).toBeUndefined();
  });

  it('hands a redirect back as it is when asked (manual)', async () => {
    const { url, seen } = await startServer((_, response) =>
      response.writeHead(302, { location: '/elsewhere' }).end(),
    );
    const answer = await transport.send(request(url, { redirect: 'manual' }), asText);
    expect(answer).toMatchObject({ status: 302, location: '/elsewhere' });
    expect(seen).toHaveLength(1);
  });

  it('stops after 20 redirects', async () => {
    const { url, seen } = await startServer((_, response) =>
      response.writeHead(302, { location: '/' }).end(),
    );
    await expect(transport.send(request(url), asText)).rejects.toMatchObject({ code: 'network' });
    expect(seen).toHaveLength(21);
  });
});

describe('the transport on Node over https', () => {
  let dir: string;
  let url: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vaultline-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const server = createHttpsServer(
      { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
      (_, response) => response.end('secure'),
    );
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Sends one request from a fresh Node (NODE_EXTRA_CA_CERTS is read at start); prints its text or error code. */
  function fromChild(env: Record<string, string>): Promise<string> {
    const script = `
      import { createTransport } from ${JSON.stringify(join(import.meta.dirname, '../src/transport/transport.ts'))};
      globalThis.fetch = () => { throw new Error('the global fetch was used'); };
      const transport = createTransport({ timeoutMs: 5000, retries: 0, retryDelayMs: 1, maxResponseBytes: 1024, redact: (t) => t });
      const url = ${JSON.stringify(url)};
      try {
        const text = await transport.send(
          { endpoint: 'readItems', operation: 'read/items', method: 'GET', url, displayUrl: url, headers: {}, read: true },
          { read: (answer) => new TextDecoder().decode(answer.bytes) },
        );
        process.stdout.write(text);
      } catch (error) {
        process.stdout.write(error.code + ': ' + error.message);
      }`;
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      child.once('error', reject);
      child.once('close', () => resolve(out));
    });
  }

  it('trusts the CAs of NODE_EXTRA_CA_CERTS, and no others', async () => {
    expect(await fromChild({ NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') })).toBe('secure');
    expect(await fromChild({})).toMatch(/^network: .*(SELF_SIGNED|UNABLE_TO_VERIFY|DEPTH_ZERO)/);
  });
});
