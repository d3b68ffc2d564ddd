import { createVaultClient, type VaultClient } from '@vaultline/protocol';
import { startTestVault, type TestVault } from '@vaultline/vault-server/testing';

/** A label that tries to drive a terminal: escape sequences and a bidi override. */
export const HOSTILE_LABEL = 'evil \u001b[31mred\u001b[0m \u202egnp.exe';

/** The seeded vault: who may read what. */
export interface SeededVault {
  vault: TestVault;
  admin: VaultClient;
  /** alice's own key (bound to her login). */
  aliceKey: string;
  folders: Record<'dev' | 'databases' | 'ops' | 'shared', number>;
  items: Record<string, number>;
  passwords: Record<string, string>;
  /** Every secret the tests must never see unless asked: passwords, attachment text, keys. */
  secrets: string[];
}

/**
 * Starts a real vault server and seeds it: alice (role dev: W on Engineering and Engineering/Databases, R on
 * Shared), bob (role ops: W on Ops). Items in each folder, an attachment, a hostile label.
 */
export async function startSeededVault(): Promise<SeededVault> {
  const vault = await startTestVault();
  const admin = createVaultClient({ baseUrl: vault.url, auth: vault.adminKey });
  for (const login of ['alice', 'bob'])
    await vault.admin.createUser({ login, email: `${login}@example.com` });
  await vault.admin.createRole({ name: 'dev' });
  await vault.admin.createRole({ name: 'ops' });
  await vault.admin.assignRole('alice', 'dev');
  await vault.admin.assignRole('bob', 'ops');
  const folder = async (title: string, parentId = 0) =>
    (await admin.folders.create({ title, complexityLevel: 0, parentId })).id;
  const dev = await folder('Engineering');
  const folders = {
    dev,
    databases: await folder('Databases', dev),
    ops: await folder('Ops'),
    shared: await folder('Shared'),
  };
  await vault.admin.grant('dev', folders.dev, 'W');
  await vault.admin.grant('dev', folders.databases, 'W');
  await vault.admin.grant('dev', folders.shared, 'R');
  await vault.admin.grant('ops', folders.ops, 'W');

  const items: Record<string, number> = {};
  const passwords: Record<string, string> = {};
  const add = async (
    label: string,
    folderId: number,
    password: string,
    extra: { login?: string; url?: string } = {},
  ) => {
    const { id } = await admin.items.create({ label, password, folderId, ...extra });
    items[label] = id;
    passwords[label] = password;
  };
  await add('prod db', folders.databases, 'Pg-Pr0d#2024!é', {
    login: 'postgres',
    url: 'postgres://db.internal:5432',
  });
  await add('api token', folders.dev, 'tok_live_9f8e7d6c5b4a', { login: 'ci-bot' });
  await add('github deploy', folders.dev, 'ghp_Deploy0123456789abcdef', { login: 'deploy-bot' });
  await add('Café ☕ 100% / wifi', folders.shared, 'Wifi-Pass-Ünïcode-42', { login: 'guest' });
  await add(HOSTILE_LABEL, folders.dev, 'Hostile-Pw-Zq9x', { login: 'evil' });
  await add('ops secret', folders.ops, 'Ops-Only-Secret-77', { login: 'root' });
  for (let i = 0; i < 10; i++) await add(`bench ${i}`, folders.dev, `Bench-Secret-${i}-${'x'.repeat(i)}`);
  await admin.files.upload(items['prod db']!, {
    fileName: 'client-key.pem',
    file: new TextEncoder().encode('-----BEGIN KEY-----\nAttachment-Secret-Line-1234\n-----END KEY-----\n'),
    contentType: 'text/plain',
  });
  const aliceKey = await vault.admin.createKey({ label: `alice-${Date.now()}`, login: 'alice' });
  return {
    vault,
    admin,
    aliceKey,
    folders,
    items,
    passwords,
    secrets: [...Object.values(passwords), 'Attachment-Secret-Line-1234', vault.adminKey, aliceKey],
  };
}
