// The vault server under benchmark, in its own process so that its RSS is its own.
// Args: <pglite|postgres> <databaseUrl|dataDir>. Prints {"url","key","readPath","findFolder","rssEmptyMiB"}
// when ready.

import { createVaultClient } from '@vaultline/protocol';
import { generateMasterKey } from '../src/crypto/master-key.ts';
import { createLogDestination } from '../src/logger.ts';
import { startVaultServer } from '../src/start-vault-server.ts';
import { operatorActor } from '../src/store/actor.ts';

const [store, target] = process.argv.slice(2);
const ITEMS = 100_000;
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
const sealed = server.vault.ctx.box.sealText('bench-password');
await server.vault.db.query(
  `INSERT INTO items (folder_id, label, label_key, login, password)
   SELECT $1, 'bench item ' || g || ' ' || md5(g::text), 'bench item ' || g || ' ' || md5(g::text), 'svc', $2
     FROM generate_series(1, ${ITEMS}) AS g`,
  [big.id, sealed],
);
await server.vault.db.exec('ANALYZE items');
process.stdout.write(
  `${JSON.stringify({ url: server.url, key, readPath: `/api/index.php/read/items/${ids.join(';')}`, findFolder: big.id, rssEmptyMiB })}\n`,
);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
