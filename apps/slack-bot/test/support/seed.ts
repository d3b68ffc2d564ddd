import { createVaultClient, type VaultClient } from '@vaultline/protocol';
import { startTestVault } from '@vaultline/vault-server/testing';

type TestVault = Awaited<ReturnType<typeof startTestVault>>;

/** Hostile text that must reach Slack only escaped. */
export const HOSTILE_LABEL = 'evil <!here> <https://evil.example|click> & @channel';

/** The seeded vault: who may read what. */
export interface SeededVault {
  vault: TestVault;
  admin: VaultClient;
  logLines: string[];
  folders: { dev: number; ops: number; shared: number; secret: number };
  items: Record<string, number>;
  passwords: Record<string, string>;
}

/** How many bulk items the Dev folder holds (for pagination). */
export const BULK_ITEMS = 45;

/**
 * Starts a real vault server and seeds it through its HTTP API and admin helpers:
 * alice (role dev: W on Dev, R on Shared), bob (role ops: W on Ops, R on Shared),
 * carol (no role: nothing), dave (a vault user no Slack account maps to).
 *
 * @returns The vault and what was put in it.
 */
export async function startSeededVault(): Promise<SeededVault> {
  const logLines: string[] = [];
  const vault = await startTestVault({ logLines });
  const admin = createVaultClient({ baseUrl: vault.url, auth: vault.adminKey });
  for (const login of ['alice', 'bob', 'carol', 'dave'])
    await vault.admin.createUser({ login, email: `${login}@example.com` });
  await vault.admin.createRole({ name: 'dev' });
  await vault.admin.createRole({ name: 'ops' });
  await vault.admin.assignRole('alice', 'dev');
  await vault.admin.assignRole('bob', 'ops');

  const folder = async (title: string) =>
    (await admin.folders.create({ title, complexityLevel: 0, parentId: 0 })).id;
  const folders = {
    dev: await folder('Dev'),
    ops: await folder('Ops'),
    shared: await folder('Shared'),
    secret: await folder('Secret'),
  };
  await vault.admin.grant('dev', folders.dev, 'W');
  await vault.admin.grant('dev', folders.shared, 'R');
  await vault.admin.grant('ops', folders.ops, 'W');
  await vault.admin.grant('ops', folders.shared, 'R');

  const items: Record<string, number> = {};
  const passwords: Record<string, string> = {};
  const add = async (label: string, folderId: number, extra: { login?: string; url?: string } = {}) => {
    const password = `Pw-${label.replace(/[^a-z0-9]/gi, '').slice(0, 12)}-${Object.keys(items).length}-Zq9`;
    const { id } = await admin.items.create({ label, password, folderId, ...extra });
    items[label] = id;
    passwords[label] = password;
  };
  await add('github-deploy', folders.dev, { login: 'deploy-bot', url: 'https://github.com/acme' });
  await add('github-actions', folders.dev, { login: 'ci-bot', url: 'javascript:alert(1)' });
  await add('staging-db', folders.dev, { login: 'stage' });
  await add(HOSTILE_LABEL, folders.dev, { login: '<@U999> @here' });
  await add('Café Wi-Fi ☕', folders.dev, { login: 'guest' });
  await add('prod-db', folders.ops, { login: 'postgres', url: 'https://db.internal.example' });
  await add('github-ops-token', folders.ops, { login: 'ops-bot' });
  await add('office-wifi', folders.shared, { login: 'office' });
  await add('root-ca', folders.secret, { login: 'ca' });
  await add('github-secret-backup', folders.secret, { login: 'backup' });
  await Promise.all(
    Array.from({ length: BULK_ITEMS }, (_, index) =>
      admin.items.create({
        label: `bulk-${String(index).padStart(3, '0')}`,
        password: `Bulk-Pw-${index}-Xy7`,
        folderId: folders.dev,
      }),
    ),
  );
  return { vault, admin, logLines, folders, items, passwords };
}
