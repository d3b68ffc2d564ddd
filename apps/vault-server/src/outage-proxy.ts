/**
 * A proxy in front of a test vault that can play an outage, for tests of the fallbacks of the CLI
 * and the GitHub Action: `up` passes every request on, `down` drops the connection (the client
 * sees a network error), `failing` answers 503 (a server failure).
 *
 * @module
 */

import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy does with a request. */
export type OutageMode = 'up' | 'down' | 'failing';

/** A running proxy. */
export interface OutageProxy {
  /** Its base URL: use it as the vault's. */
  readonly url: string;
  /** What it does now; `up` at first. */
  mode: OutageMode;
  /** Stops it. */
  close(): Promise<void>;
}

/**
 * Starts a proxy on 127.0.0.1 in front of a vault.
 *
 * @param target The vault's base URL.
 * @returns The proxy.
 */
export async function startOutageProxy(target: string): Promise<OutageProxy> {
  const to = new URL(target);
  const proxy: { mode: OutageMode } = { mode: 'up' };
  const server = createServer((incoming, outgoing) => {
    if (proxy.mode === 'down') {
      incoming.socket.destroy();
      return;
    }
    if (proxy.mode === 'failing') {
      outgoing.writeHead(503, { 'content-type': 'text/plain' }).end('Service Unavailable');
      return;
    }
    const forwarded = request(
      {
        hostname: to.hostname,
        port: to.port,
        path: incoming.url,
        method: incoming.method,
        headers: { ...incoming.headers, host: to.host },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(proxy, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
