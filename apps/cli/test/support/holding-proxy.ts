import { once } from 'node:events';
import { createServer, request as forward, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A proxy in front of a server that holds the requests a test names until it lets them go. */
export interface HoldingProxy {
  /** The proxy's base URL. */
  readonly url: string;
  /** Resolves when a held request has arrived (the next one, or one already waiting). */
  arrived(): Promise<void>;
  /** Lets every held request (and every later one) through. */
  release(): void;
  close(): Promise<void>;
}

/**
 * Starts a proxy on 127.0.0.1 that forwards to `target`, holding each request whose path
 * `hold` accepts until {@link HoldingProxy.release}: a slow vault, for as long as the test wants.
 *
 * @param target The server's base URL.
 * @param hold Which requests to hold.
 * @returns The proxy.
 */
export async function startHoldingProxy(
  target: string,
  hold: (path: string) => boolean,
): Promise<HoldingProxy> {
  const base = new URL(target);
  let released = false;
  let letGo: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  let seen: () => void = () => undefined;
  const arrival = new Promise<void>((resolve) => {
    seen = resolve;
  });
  const pass = (req: IncomingMessage, res: import('node:http').ServerResponse) => {
    const out = forward(
      {
        hostname: base.hostname,
        port: base.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: base.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  };
  const server: Server = createServer((req, res) => {
    if (!released && hold(req.url ?? '')) {
      seen();
      void gate.then(() => pass(req, res));
      return;
    }
    pass(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    arrived: () => arrival,
    release() {
      released = true;
      letGo();
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
