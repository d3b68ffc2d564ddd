// The vault server under benchmark, in its own process so that its RSS is its own.
// Args: <pglite|postgres> <databaseUrl|dataDir>. Prints {"url","key","readPath","findFolder","rssEmptyMiB"}
// when ready.

import { createHash } from 'node:crypto';
import { createVaultClient, type ItemValues } from '@vaultline/protocol';
import { generateMasterKey } from '../src/crypto/master-key.ts';
import { createLogDestination } from '../src/logger.ts';
import { startVaultServer } from '../src/start-vault-server.ts';
import { operatorActor } from '../src/store/actor.ts';
import { addItems } from '../src/store/items.ts';

const [store, target] = process.argv.slice(2);
const ITEMS = 100_000;
const SEED_BATCH = 5_000;
const server = await startVaultServer({
  host: '127.0.0.1',
  port: 0,
  databaseUrl: store === 'postgres' ? target : undefined,
  dataDir: store === 'pglite' ? target : undefined,
  masterKey: store === 'postgres' ? generateMasterKey() : undefined,
  rateLimitPerMinute: 100_000_000,
  // The production destination (asynchronous, buffered), at the production log level.
  log: createLogDestination('/dev/null'),
});
const key = await server.vault.adminAs(operatorActor('bench', 'bench')).createKey({ label: 'bench' });
// Idle: after the engine's start-up work (WebAssembly compilation on PGlite) has settled.
await new Promise((resolve) => setTimeout(resolve, 3_000));
const rssEmptyMiB = Math.round(process.memoryUsage().rss / 1024 / 102.4) / 10;
const client = createVaultClient({ baseUrl: server.url, apiKey: key });
const small = await client.addFolder({ folder: { title: 'Bench read' } });
const ids: number[] = [];
for (let i = 0; i < 3; i++) {
  ids.push(
    (
      await client.addItem({
        item: {
          label: `bench read ${i}`,
          password: `pw-${i}-xyz`,
          folderId: small.id,
          login: 'svc',
          url: 'https://example.com',
        },
      })
    ).id,
  );
}
const big = await client.addFolder({ folder: { title: 'Bench find' } });
// Through the store (the checks, the encryption and the audit of add/item), in batches: never raw SQL.
const seeder = operatorActor('bench', 'bench');
for (let start = 1; start <= ITEMS; start += SEED_BATCH) {
  const batch: ItemValues[] = [];
  for (let g = start; g < Math.min(start + SEED_BATCH, ITEMS + 1); g++) {
    batch.push({
      label: `bench item ${g} ${createHash('md5').update(String(g)).digest('hex')}`,
      password: 'bench-password',
      description: '',
      folderId: String(big.id),
      login: 'svc',
      email: '',
      url: '',
      tags: '',
      anyoneCanModify: '0',
    });
  }
  await addItems(server.vault.ctx, seeder, batch);
}
await server.vault.db.exec('ANALYZE items');
process.stdout.write(
  `${JSON.stringify({ url: server.url, key, readPath: `/api/index.php/read/items/${ids.join(';')}`, findFolder: big.id, rssEmptyMiB })}\n`,
);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
