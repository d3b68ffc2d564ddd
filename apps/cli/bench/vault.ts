// What the benches against a real Vaultline server share: the server, with a login "bench" that
// may read one folder "Bench".
import { createVaultClient, type VaultClient } from '@vaultline/protocol';
import { startTestVault } from '@vaultline/vault-server/testing';

/** The server, an admin client and the folder "bench" may read. */
export async function startBenchVault(logLines?: string[]): Promise<{
  vault: Awaited<ReturnType<typeof startTestVault>>;
  admin: VaultClient;
  folderId: number;
}> {
  const vault = await startTestVault(logLines ? { logLines } : {});
  await vault.admin.createUser({ login: 'bench' });
  await vault.admin.createRole({ name: 'bench' });
  await vault.admin.assignRole('bench', 'bench');
  const admin = createVaultClient({ baseUrl: vault.url, auth: vault.adminKey });
  const { id: folderId } = await admin.folders.create({ title: 'Bench', complexityLevel: 0, parentId: 0 });
  await vault.admin.grant('bench', folderId, 'R');
  return { vault, admin, folderId };
}
