// Starts a real vault server in this process and seeds it through its HTTP API (protocol client on
// the admin key) plus its admin helpers: two users with different rights. Shared by both runners.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { createVaultClient } from '@vaultline/protocol';
import { startTestVault } from '@vaultline/vault-server/testing';

/** A port where nothing listens, for the "server down" case. */
async function closedPort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs `task` over `count` indexes with bounded concurrency. */
async function pool(count, concurrency, task) {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/**
 * @param {{ bulkCount?: number }} options
 * @returns {Promise<{ vault: { close(): Promise<void> }, fixture: object }>}
 */
export async function seedVault({ bulkCount = 0 } = {}) {
  const vault = await startTestVault();
  const admin = createVaultClient({ baseUrl: vault.url, auth: vault.adminKey });

  const aliceUser = await vault.admin.createUser({ login: 'alice', email: 'alice@example.com' });
  await vault.admin.createUser({ login: 'bob', email: 'bob@example.com' });
  await vault.admin.createRole({ name: 'developers' });
  await vault.admin.createRole({ name: 'support' });
  await vault.admin.assignRole('alice', 'developers');
  await vault.admin.assignRole('bob', 'support');
  // carol may add and delete but not edit (NE): the rights table's odd one out.
  await vault.admin.createUser({ login: 'carol', email: 'carol@example.com' });
  await vault.admin.createRole({ name: 'clerks' });
  await vault.admin.assignRole('carol', 'clerks');
  // dave has a key but no role: he may read no folder.
  await vault.admin.createUser({ login: 'dave', email: 'dave@example.com' });

  const infra = (await admin.folders.create({ title: 'Infrastructure', complexityLevel: 50 })).id;
  const databases = (await admin.folders.create({ title: 'Databases', complexityLevel: 60, parentId: infra }))
    .id;
  const payments = (await admin.folders.create({ title: 'Payments', complexityLevel: 70 })).id;
  await vault.admin.grant('developers', infra, 'W');
  await vault.admin.grant('developers', databases, 'W');
  await vault.admin.grant('developers', payments, 'R');
  await vault.admin.grant('support', infra, 'R');
  await vault.admin.grant('clerks', infra, 'NE');

  const add = async (item) => ({ ...item, id: (await admin.items.create(item)).id });
  const items = {
    web: await add({
      label: 'web-frontend',
      login: 'deploy',
      password: 'Fr0nt!end-Pass-2026',
      url: 'https://web.example.com',
      email: 'ops@example.com',
      folderId: infra,
    }),
    ci: await add({
      label: 'ci-runner',
      login: 'ci-bot',
      password: 'C1-runner#Token_77',
      url: 'https://ci.example.com',
      email: 'ci@example.com',
      folderId: infra,
    }),
    db: await add({
      label: 'db-prod',
      login: 'postgres',
      password: 'Pr0d-DB/S3cret;x=ü',
      url: 'postgres://db.internal:5432/app',
      email: 'dba@example.com',
      folderId: databases,
    }),
    stripe: await add({
      label: 'stripe-live',
      login: 'acct_1234',
      password: 'sk_live_Str1pe!Secret',
      url: 'https://dashboard.stripe.com',
      email: 'billing@example.com',
      folderId: payments,
    }),
  };
  const attachment = {
    itemId: items.db.id,
    name: 'notes.txt',
    text: 'Connection notes ✓\nuse sslmode=require\n',
  };
  await admin.files.upload(attachment.itemId, {
    file: new TextEncoder().encode(attachment.text),
    fileName: attachment.name,
    contentType: 'text/plain',
  });

  let bulk;
  if (bulkCount > 0) {
    bulk = (await admin.folders.create({ title: 'Bulk', complexityLevel: 0 })).id;
    await vault.admin.grant('developers', bulk, 'R');
    await pool(bulkCount, 8, (i) =>
      admin.items.create({
        label: `bulk-${String(i).padStart(5, '0')}`,
        login: `user${i}`,
        password: `Bulk-pw-${i}!x`,
        folderId: bulk,
      }),
    );
  }

  const keys = {
    admin: vault.adminKey,
    alice: await vault.admin.createKey({ label: 'alice-vscode', login: 'alice' }),
    bob: await vault.admin.createKey({ label: 'bob-vscode', login: 'bob' }),
    carol: await vault.admin.createKey({ label: 'carol-vscode', login: 'carol' }),
    dave: await vault.admin.createKey({ label: 'dave-vscode', login: 'dave' }),
    revoked: await vault.admin.createKey({ label: 'revoked-vscode', login: 'alice' }),
  };
  await vault.admin.revokeKey('revoked-vscode');
  // Literals the secret-detection tests store in the vault: made now, from parts, so no token is in
  // the repository; the harness scans every file VS Code wrote for them afterwards.
  const alnum = (n) =>
    [...randomBytes(n)]
      .map((b) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[b % 62])
      .join('');
  const detection = {
    token: ['gh', 'p_', alnum(36)].join(''),
    password: `Vl-${alnum(10)}#${alnum(4)}!`,
    // Saved before it is stored: VS Code's Local History copies it, and the test replaces it there.
    history: `Lh-${alnum(12)}+${alnum(4)}!`,
  };
  const fixture = {
    url: vault.url,
    detection,
    downUrl: `http://127.0.0.1:${await closedPort()}`,
    keys,
    users: { alice: aliceUser.id },
    folders: { infra, databases, payments, ...(bulk ? { bulk } : {}) },
    items: Object.fromEntries(Object.entries(items).map(([k, v]) => [k, { ...v, folderId: v.folderId }])),
    attachment,
    mode: bulkCount > 0 ? 'bench' : 'test',
    bulkCount,
  };
  return { vault, fixture };
}
