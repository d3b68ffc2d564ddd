// Seeds the benchmark's vault through the store (openVault, the admin and addItems: the checks, the
// encryption and the audit of add/item), in a process of its own, so that the server measured
// afterwards starts on a vault it did not fill itself.
// Args: <pglite|postgres> <databaseUrl|dataDir> <items>; VAULTLINE_MASTER_KEY for PostgreSQL.
// Prints {"key","readPath","findFolder"} when done.

import type { ItemValues } from '@vaultline/protocol/wire';
import { operatorActor } from '../src/store/actor.ts';
import { addFolder } from '../src/store/folders.ts';
import { addItems } from '../src/store/items.ts';
import { openVault } from '../src/vault.ts';
import { benchHash } from './bench-hash.ts';

const [store, target, count = '0'] = process.argv.slice(2);
const ITEMS = Number(count);
const SEED_BATCH = 5_000;
const seeder = operatorActor('bench', 'bench');
const vault = await openVault({
  dataDir: store === 'pglite' ? target : undefined,
  databaseUrl: store === 'postgres' ? target : undefined,
  masterKey: process.env.VAULTLINE_MASTER_KEY,
  cacheTtlMs: 0,
  createMasterKey: true,
});
const values = (
  label: string,
  folderId: number,
  password: string,
  login = 'svc',
  url = 'https://example.com',
): ItemValues => ({
  label,
  password,
  description: '',
  folderId: String(folderId),
  login,
  email: '',
  url,
  tags: '',
  anyoneCanModify: '0',
});
const key = await vault.adminAs(seeder).createKey({ label: `bench-${Date.now()}` });
const small = await addFolder(vault.ctx, seeder, {
  title: 'Bench read',
  parentId: 0,
  complexityLevel: 0,
  renewalPeriod: 0,
  personal: false,
});
const ids = await addItems(
  vault.ctx,
  seeder,
  [0, 1, 2].map((i) => values(`bench read ${i}`, small, `pw-${i}-xyz`)),
);
const big = await addFolder(vault.ctx, seeder, {
  title: 'Bench find',
  parentId: 0,
  complexityLevel: 0,
  renewalPeriod: 0,
  personal: false,
});
for (let start = 1; start <= ITEMS; start += SEED_BATCH) {
  const batch: ItemValues[] = [];
  for (let g = start; g < Math.min(start + SEED_BATCH, ITEMS + 1); g++) {
    // The login and the URL hold other parts of the hash: the bench's searches find words there too.
    const hash = benchHash(g);
    batch.push(
      values(
        `bench item ${g} ${hash}`,
        big,
        'bench-password',
        `svc_${hash.slice(20, 26)}`,
        `https://host-${hash.slice(26, 32)}.example.com`,
      ),
    );
  }
  await addItems(vault.ctx, seeder, batch);
}
await vault.db.exec('ANALYZE items');
await vault.close();
process.stdout.write(
  `${JSON.stringify({ key, readPath: `/api/index.php/read/items/${ids.join(';')}`, findFolder: big })}\n`,
);
