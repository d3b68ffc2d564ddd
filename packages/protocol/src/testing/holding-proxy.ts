import { once } from 'node:events';
import { createServer, request as forward, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A proxy in front of a server that, when told, holds the requests a test names until released. */
export interface HoldingProxy {
  /** The proxy's base URL. */
  readonly url: string;
  /** Holds from now on every request whose path `which` accepts; resolves when one arrives. */
  hold(which: (path: string) => boolean): { arrived: Promise<void> };
  /** Lets every held request through, and holds no more. */
  release(): void;
  close(): Promise<void>;
}

/**
 * Starts a proxy on 127.0.0.1 that forwards to `target`: a vault that stops answering some
 * requests for as long as the test wants.
 *
 * @param target The server's base URL.
 * @returns The proxy.
 */
export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  const base = new URL(target);
  let holding: ((path: string) => boolean) | undefined;
  let arrivedNow: () => void = () => undefined;
  let held: (() => void)[] = [];
  const pass = (req: IncomingMessage, res: ServerResponse) => {
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
  const server = createServer((req, res) => {
    if (holding?.(req.url ?? '')) {
      arrivedNow();
      held.push(() => pass(req, res));
      return;
    }
    pass(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hold(which) {
      holding = which;
      return {
        arrived: new Promise<void>((resolve) => {
          arrivedNow = resolve;
        }),
      };
    },
    release() {
      holding = undefined;
      const waiting = held;
      held = [];
      for (const go of waiting) go();
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
