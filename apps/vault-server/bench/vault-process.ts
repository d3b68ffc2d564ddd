// The vault server under benchmark, in its own process so that its RSS is its own, on a vault
// seeded before by seed-process.ts. Args: <pglite|postgres> <databaseUrl|dataDir>;
// VAULTLINE_MASTER_KEY for PostgreSQL. Prints {"url","rssIdleMiB"} once idle.

import { createLogDestination } from '../src/logger.ts';
import { startVaultServer } from '../src/start-vault-server.ts';

const [store, target] = process.argv.slice(2);
const server = await startVaultServer({
  host: '127.0.0.1',
  port: 0,
  databaseUrl: store === 'postgres' ? target : undefined,
  dataDir: store === 'pglite' ? target : undefined,
  masterKey: process.env.VAULTLINE_MASTER_KEY,
  rateLimitPerMinute: 100_000_000,
  // The production destination (asynchronous, buffered), at the production log level.
  log: createLogDestination('/dev/null'),
});
// Idle: after the engine's start-up work (WebAssembly compilation on PGlite) has settled.
await new Promise((resolve) => setTimeout(resolve, 3_000));
const rssIdleMiB = Math.round(process.memoryUsage().rss / 1024 / 102.4) / 10;
process.stdout.write(`${JSON.stringify({ url: server.url, rssIdleMiB })}\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
