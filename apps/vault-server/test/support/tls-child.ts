// A vault server with TLS in its own process, for the SIGHUP test: prints {"url"} once listening.
import { startVaultServer } from '../../src/start-vault-server.ts';

const [tlsCert, tlsKey] = process.argv.slice(2);
if (!tlsCert || !tlsKey) throw new Error('usage: tls-child.ts <cert.pem> <key.pem>');
const server = await startVaultServer({
  host: '127.0.0.1',
  port: 0,
  tlsCert,
  tlsKey,
  log: { write: (line: string) => void process.stderr.write(line) },
});
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
