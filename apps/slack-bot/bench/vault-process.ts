// The vault of the benchmark, in its own process (as in production), so its CPU does not share the
// bot's event loop. Sets up one user with rights on FOLDERS folders and reports over IPC.
// On {bulk: {from, to}} it adds items through the vault's store (`admin.addItems`: the checks,
// encryption and audit of add/item, many rows per statement): seeding 100 000 items through the API
// one by one takes minutes (~400 items/s here).
import { createVaultClient } from '@vaultline/protocol';
import { startTestVault } from '@vaultline/vault-server/testing';

const FOLDERS = Number(process.env.BENCH_FOLDERS ?? 10);
const BATCH = 500;

const vault = await startTestVault();
/** The nine values of an item as the vault's store takes them. */
type ItemValues = Parameters<typeof vault.admin.addItems>[0][number];
const admin = createVaultClient({ baseUrl: vault.url, auth: vault.adminKey });
await vault.admin.createUser({ login: 'alice', email: 'alice@example.com' });
await vault.admin.createRole({ name: 'dev' });
await vault.admin.assignRole('alice', 'dev');
const folderIds: number[] = [];
for (let f = 0; f < FOLDERS; f += 1) {
  const { id } = await admin.folders.create({ title: `Bench ${f}`, complexityLevel: 0, parentId: 0 });
  await vault.admin.grant('dev', id, 'W');
  folderIds.push(id);
}

async function bulk(from: number, to: number): Promise<void> {
  for (let start = from; start < to; start += BATCH) {
    const batch: ItemValues[] = [];
    for (let i = start; i < Math.min(to, start + BATCH); i += 1) {
      batch.push({
        label: `item-${String(i).padStart(6, '0')}`,
        password: `Pw-${i}-bench`,
        description: '',
        folderId: String(folderIds[i % folderIds.length]),
        login: `user${i}`,
        email: '',
        url: '',
        tags: '',
        anyoneCanModify: '0',
      });
    }
    await vault.admin.addItems(batch);
  }
}

process.on('message', (message: { bulk?: { from: number; to: number } }) => {
  if (!message.bulk) return;
  const { from, to } = message.bulk;
  bulk(from, to).then(
    () => process.send?.({ bulkDone: true }),
    (error: unknown) => process.send?.({ bulkError: error instanceof Error ? error.message : String(error) }),
  );
});
process.send?.({ url: vault.url, adminKey: vault.adminKey, folderIds });
process.on('disconnect', () => {
  void vault.close().finally(() => process.exit(0));
});
