// The vault of the benchmark, in its own process (as in production), so its CPU does not share the
// bot's event loop. Sets up one user with rights on FOLDERS folders and reports over IPC.
// On {bulk: {from, to}} it inserts items straight into its database with its own secret box:
// seeding 100 000 items through the API one by one takes minutes (~400 items/s here). The server
// offers no bulk seeding helper yet; this leans on its schema and should move to one.
import { createVaultClient } from '@vaultline/protocol';
import { startTestVault } from '@vaultline/vault-server/testing';

const FOLDERS = Number(process.env.BENCH_FOLDERS ?? 10);
const BATCH = 500;

const vault = await startTestVault();
const admin = createVaultClient({ baseUrl: vault.url, apiKey: vault.adminKey });
await vault.admin.createUser({ login: 'alice', email: 'alice@example.com' });
await vault.admin.createRole({ name: 'dev' });
await vault.admin.assignRole('alice', 'dev');
const folderIds: number[] = [];
for (let f = 0; f < FOLDERS; f += 1) {
  const { id } = await admin.addFolder({ folder: { title: `Bench ${f}`, complexityLevel: 0, parentId: 0 } });
  await vault.admin.grant('dev', id, 'W');
  folderIds.push(id);
}

async function bulk(from: number, to: number): Promise<void> {
  const { db, ctx } = vault.server.vault;
  for (let start = from; start < to; start += BATCH) {
    const end = Math.min(to, start + BATCH);
    const params: unknown[] = [];
    const rows: string[] = [];
    for (let i = start; i < end; i += 1) {
      const label = `item-${String(i).padStart(6, '0')}`;
      const n = params.length;
      rows.push(`($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5})`);
      params.push(
        folderIds[i % folderIds.length],
        label,
        label.toLowerCase(),
        `user${i}`,
        ctx.box.sealText(`Pw-${i}-bench`),
      );
    }
    await db.query(
      `INSERT INTO items (folder_id, label, label_key, login, password) VALUES ${rows.join(', ')}`,
      params,
    );
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
