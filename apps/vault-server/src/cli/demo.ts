import { randomBytes } from 'node:crypto';
import { createVaultClient } from '@vaultline/protocol';
import type { VaultAdmin } from '../vault.ts';

/** What {@link seedDemo} created. */
export interface DemoVault {
  users: Record<string, number>;
  folders: Record<string, number>;
  items: Record<string, number>;
}

function demoPassword(): string {
  return `${randomBytes(12).toString('base64url')}!9a`;
}

/**
 * Seeds a realistic demo vault through the HTTP API (folders, items, attachments) and the admin
 * interface (users, roles, rights): nested folders, three users with different roles, a personal
 * folder, items and two attachments. Passwords are random.
 */
export async function seedDemo(baseUrl: string, adminKey: string, admin: VaultAdmin): Promise<DemoVault> {
  await using vault = createVaultClient({ baseUrl, auth: adminKey });
  const users: Record<string, number> = {};
  for (const [login, email] of [
    ['alice', 'alice@example.com'],
    ['bob', 'bob@example.com'],
    ['carol', 'carol@example.com'],
  ] as const) {
    users[login] = (await admin.createUser({ login, email })).id;
  }
  for (const role of ['developers', 'operations', 'auditors']) await admin.createRole({ name: role });
  await admin.assignRole('alice', 'developers');
  await admin.assignRole('bob', 'operations');
  await admin.assignRole('bob', 'developers');
  await admin.assignRole('carol', 'auditors');

  const folders: Record<string, number> = {};
  const folder = async (name: string, title: string, parentId = 0, complexityLevel: 0 | 50 | 70 = 50) => {
    folders[name] = (await vault.folders.create({ title, parentId, complexityLevel, renewalPeriod: 12 })).id;
    return folders[name];
  };
  const engineering = await folder('engineering', 'Engineering');
  await folder('databases', 'Databases', engineering, 70);
  await folder('ci', 'CI', engineering);
  const operations = await folder('operations', 'Operations');
  await folder('cloud', 'Cloud', operations, 70);
  await folder('shared', 'Shared', 0, 0);
  folders.alicePersonal = (await vault.folders.create({ title: String(users.alice), personal: true })).id;

  await admin.grant('developers', folders.engineering!, 'R');
  await admin.grant('developers', folders.databases!, 'ND');
  await admin.grant('developers', folders.ci!, 'W');
  await admin.grant('developers', folders.shared!, 'R');
  await admin.grant('operations', folders.operations!, 'W');
  await admin.grant('operations', folders.cloud!, 'W');
  await admin.grant('operations', folders.databases!, 'NE');
  await admin.grant('operations', folders.shared!, 'W');
  await admin.grant('auditors', folders.databases!, 'R');
  await admin.grant('auditors', folders.cloud!, 'R');

  const items: Record<string, number> = {};
  const item = async (
    name: string,
    folderId: number,
    label: string,
    fields: { login?: string; email?: string; url?: string; description?: string; tags?: string } = {},
  ) => {
    items[name] = (await vault.items.create({ label, password: demoPassword(), folderId, ...fields })).id;
  };
  await item('postgresProd', folders.databases!, 'PostgreSQL production', {
    login: 'app_rw',
    url: 'postgres://db.prod.internal:5432/app',
    description: 'Primary database, read-write role',
    tags: 'db prod',
  });
  await item('postgresStaging', folders.databases!, 'PostgreSQL staging', {
    login: 'app_rw',
    url: 'postgres://db.staging.internal:5432/app',
  });
  await item('redis', folders.databases!, 'Redis cache', { url: 'redis://cache.internal:6379' });
  await item('githubDeploy', folders.ci!, 'GitHub deploy token', {
    login: 'deploy-bot',
    url: 'https://github.com',
  });
  await item('npmToken', folders.ci!, 'npm publish token', {
    login: 'vaultline-ci',
    url: 'https://www.npmjs.com',
  });
  await item('awsRoot', folders.cloud!, 'AWS root account', {
    email: 'aws@example.com',
    url: 'https://console.aws.amazon.com',
  });
  await item('cloudflare', folders.cloud!, 'Cloudflare API', {
    login: 'ops@example.com',
    url: 'https://dash.cloudflare.com',
  });
  await item('wifi', folders.shared!, 'Office Wi-Fi', {
    login: 'guest',
    description: 'Guest network, changes monthly',
  });
  await item('alicePersonal', folders.alicePersonal, 'Alice personal mail', {
    email: 'alice@example.com',
    url: 'https://mail.example.com',
  });

  await vault.files.upload(items.postgresProd!, {
    file: new TextEncoder().encode(
      '-----BEGIN CERTIFICATE-----\nMIIDemoCertificateForVaultlineOnly\n-----END CERTIFICATE-----\n',
    ),
    fileName: 'db-ca.pem',
    contentType: 'application/x-pem-file',
  });
  await vault.files.upload(items.awsRoot!, {
    file: new TextEncoder().encode('Recovery codes (demo): 1111-2222 3333-4444\n'),
    fileName: 'recovery codes.txt',
    contentType: 'text/plain',
  });
  return { users, folders, items };
}
