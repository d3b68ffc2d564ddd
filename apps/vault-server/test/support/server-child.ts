// A vault server in its own process, for tests that kill it: prints {"url","key"} once listening.
import { startVaultServer } from '../../src/start-vault-server.ts';
import { operatorActor } from '../../src/store/actor.ts';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: server-child.ts <dataDir>');
const server = await startVaultServer({
  host: '127.0.0.1',
  port: 0,
  dataDir,
  rateLimitPerMinute: 1_000_000,
  cacheTtlMs: 0,
  log: { write: () => {} },
});
const key = await server.vault
  .adminAs(operatorActor('test-child', 'test'))
  .createKey({ label: `child-${process.pid}` });
process.stdout.write(`${JSON.stringify({ url: server.url, key })}\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
