// An HTTP relay in front of the vault server that answers CORS like a server with
// VAULTLINE_CORS_ORIGINS set to the workbench's origin: the web worker extension host fetches
// from the workbench's origin, so a vault on another origin must allow it. (The vault server's own
// CORS support lands with another branch; this stands in for it in the web check.)
import { createServer, request } from 'node:http';

/**
 * @param {string} target The vault's base URL.
 * @param {string} origin The one allowed origin.
 * @returns {Promise<{ url: string, close(): Promise<void> }>}
 */
export async function startCorsRelay(target, origin) {
  const upstream = new URL(target);
  const cors = {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': 'GET, POST, PUT, DELETE, OPTIONS',
    'access-control-allow-headers': 'authorization, content-type',
    'access-control-expose-headers': 'content-type, content-disposition, content-length',
    'access-control-max-age': '600',
    vary: 'Origin',
  };
  const server = createServer((req, res) => {
    const allowed = req.headers.origin === origin;
    if (req.method === 'OPTIONS') {
      res.writeHead(allowed ? 204 : 403, allowed ? cors : {});
      res.end();
      return;
    }
    const proxied = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, { ...answer.headers, ...(allowed ? cors : {}) });
        answer.pipe(res);
      },
    );
    proxied.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(proxied);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
