// Starts the protocol package's TeamPass 3 fake (TeamPass 3.2.1.5's REST API over HTTP: JWT
// sessions, per-user rights and API flags, problem+json, HTML-escaped labels, pages, 429), seeded
// like the vault fixture: the same folders, items and rights for alice and bob, plus what only
// TeamPass 3 has (a one-time code and tags on an item) and the bad input the issue names (a tree
// 20 folders deep, labels full of entities and emoji). Its clock stands still unless a test moves
// it. A small control server lets the suite, in the extension host's process, drive it over HTTP.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { startTeamPass3Fake } from '@vaultline/protocol/testing';
import { startTestVault } from '@vaultline/vault-server/testing';

/** A minute boundary plus one second: a rate limit then asks to wait 59 s (more than a client waits). */
const START = Math.floor(Date.now() / 60_000) * 60_000 + 1000;
const LEVELS = Array.from({ length: 20 }, (_, i) => `Level ${i + 1}`);
/** Folder titles go through strip_tags in TeamPass: no tags in this one. */
const HOSTILE_FOLDER = `R&D & "quoted" 'single' 🚀 &amp;`;
/** TeamPass 3 stores it with entities (`&amp;`, `&lt;b&gt;`, `&#039;`, `M&uuml;ller`, `&euro;`). */
const HOSTILE_LABEL = `Tom & Jerry <b>"x"</b> 'y' 😀🎉 Müller €`;
const TOTP_SECRET = 'JBSWY3DPEHPK3PXP';

/**
 * @param {object} fixture The vault fixture (`seedVault`): its items are seeded here alike.
 * @param {{ bulkCount?: number }} options A folder of that many items for alice (benchmarks).
 * @returns {Promise<{ fake: import('@vaultline/protocol/testing').TeamPass3Fake, close(): Promise<void>, teampass3: object }>}
 */
export async function seedTeamPass3(fixture, { bulkCount = 0 } = {}) {
  const user = (login, prefix) => ({
    login,
    // Inner spaces and `&=+` travel as they are; TeamPass trims only the ends.
    password: `${prefix} ${randomBytes(6).toString('base64url')}&=+`,
    apiKey: randomBytes(20).toString('hex'),
  });
  const users = {
    alice: user('alice', 'Al1ce'),
    bob: user('bob', 'B0b'),
    // Devs' rights, but the API may not update or delete for him: his folders fold to "add only".
    dave: user('dave', 'D4ve'),
    // The deep tree and the hostile labels.
    erin: user('erin', 'Er1n'),
    // An administrator (every shared folder, full access): the tests' own client.
    admin: user('admin', 'Adm1n'),
  };
  let deep = { title: LEVELS.at(-1) };
  for (let level = LEVELS.length - 1; level >= 1; level--)
    deep = { title: `Level ${level}`, children: [deep] };
  const seedItems = [
    ...Object.values(fixture.items).map((item) => ({
      label: item.label,
      login: item.login,
      password: item.password,
      url: item.url,
      email: item.email,
      folder:
        item.folderId === fixture.folders.databases
          ? 'Infrastructure/Databases'
          : item.folderId === fixture.folders.payments
            ? 'Payments'
            : 'Infrastructure',
      ...(item.label === fixture.items.ci.label ? { totp: TOTP_SECRET, tags: 'ci deploy' } : {}),
      ...(item.label === fixture.items.db.label ? { tags: ['database', 'prod'] } : {}),
    })),
    { label: 'deep secret', folder: LEVELS.join('/'), password: 'Deep-pw-2026!', login: 'abyss' },
    {
      label: HOSTILE_LABEL,
      folder: HOSTILE_FOLDER,
      password: 'Cartoon-pw-2026!',
      login: "o'neil & <co>",
    },
    ...Array.from({ length: bulkCount }, (_, i) => ({
      label: `bulk-${String(i).padStart(5, '0')}`,
      folder: 'Bulk',
      login: `user${i}`,
      password: `Bulk-pw-${i}!x`,
    })),
  ].map((item, index) => ({ id: index + 1, ...item }));
  const fake = await startTeamPass3Fake({
    now: START,
    seed: {
      folders: [
        { title: 'Infrastructure', complexity: 38, children: [{ title: 'Databases', complexity: 48 }] },
        { title: 'Payments', complexity: 60 },
        deep,
        { title: HOSTILE_FOLDER },
        ...(bulkCount > 0 ? [{ title: 'Bulk' }] : []),
      ],
      roles: [
        {
          name: 'Devs',
          folders: {
            Infrastructure: 'W',
            'Infrastructure/Databases': 'W',
            Payments: 'R',
            ...(bulkCount > 0 ? { Bulk: 'R' } : {}),
          },
        },
        { name: 'Support', folders: { Infrastructure: 'R' } },
        {
          name: 'Deep',
          folders: {
            [HOSTILE_FOLDER]: 'W',
            ...Object.fromEntries(LEVELS.map((_, i) => [LEVELS.slice(0, i + 1).join('/'), 'W'])),
          },
        },
      ],
      users: [
        { ...users.alice, roles: ['Devs'], manager: true },
        { ...users.bob, roles: ['Support'] },
        { ...users.dave, roles: ['Devs'], api: { update: false, delete: false } },
        { ...users.erin, roles: ['Deep'] },
        { ...users.admin, admin: true },
      ],
      items: seedItems,
    },
  });
  // Ids given in the seed: TeamPass 3 stores labels escaped, so they are not looked up by label.
  const idOf = (label) => seedItems.find((item) => item.label === label)?.id;
  const items = Object.fromEntries(
    Object.entries(fixture.items).map(([name, item]) => [
      name,
      {
        ...item,
        id: idOf(item.label),
        folderId:
          fake.folder(
            item.folderId === fixture.folders.databases
              ? 'Infrastructure/Databases'
              : item.folderId === fixture.folders.payments
                ? 'Payments'
                : 'Infrastructure',
          )?.id ?? 0,
      },
    ]),
  );

  // The control API: the suite runs in another process (the extension host) and drives the fake
  // over HTTP. Test-only, on 127.0.0.1.
  const ops = {
    signIns: (login) => fake.signIns(login),
    resetCounters: () => fake.resetCounters(),
    advanceClock: (ms) => fake.clock.advance(ms),
    setApiFlags: (login, flags) => fake.setApiFlags(login, flags),
    updateUser: (login, changes) => fake.updateUser(login, changes),
    configure: (settings) => fake.configure(settings),
    item: (id) => fake.item(id),
    // Every token issued, for leak checks inside the suite (the harness scans the disk for them too).
    tokens: (login) => fake.tokens(login),
    requestCount: () => fake.requests.length,
    requests: (since) =>
      fake.requests.slice(since).map(({ method, url, status, login }) => ({ method, url, status, login })),
  };
  const control = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      try {
        const { op, args = [] } = JSON.parse(body);
        if (!Object.hasOwn(ops, op)) throw new Error(`no control operation ${op}`);
        const result = ops[op](...args);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ result: result ?? null }));
      } catch (error) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: String(error?.message ?? error) }));
      }
    });
  });
  await new Promise((resolve) => control.listen(0, '127.0.0.1', resolve));

  const folderId = (path) => fake.folder(path)?.id ?? 0;
  // A Vaultline server in upstream mode in front of the fake: a machine key bound to alice's
  // account, cut to Infrastructure and its subfolders (alice reads Payments too, on TeamPass).
  const upstreamVault = await startTestVault({ upstreamUrl: fake.url });
  const upstreamAdmin = upstreamVault.server.vault.adminAs({
    principal: { kind: 'admin', keyLabel: '' },
    name: 'test',
    keyLabel: '',
    address: 'test',
  });
  await upstreamAdmin.addUpstreamAccount({
    name: 'alice',
    url: fake.url,
    login: users.alice.login,
    method: 'password',
    secrets: { password: users.alice.password, apiKey: users.alice.apiKey },
  });
  const upstreamKey = await upstreamAdmin.createKey({
    label: 'vscode',
    upstream: { account: 'alice', folders: [folderId('Infrastructure')], subfolders: true },
  });
  return {
    fake,
    close: async () => {
      await upstreamVault.close();
      await new Promise((resolve) => control.close(resolve));
      await fake.close();
    },
    teampass3: {
      url: fake.url,
      controlUrl: `http://127.0.0.1:${control.address().port}`,
      users,
      folders: {
        infra: folderId('Infrastructure'),
        databases: folderId('Infrastructure/Databases'),
        payments: folderId('Payments'),
        deepest: folderId(LEVELS.join('/')),
        hostile: folderId(HOSTILE_FOLDER),
        ...(bulkCount > 0 ? { bulk: folderId('Bulk') } : {}),
      },
      levels: LEVELS,
      items,
      deep: { id: idOf('deep secret'), label: 'deep secret', login: 'abyss' },
      hostile: {
        id: idOf(HOSTILE_LABEL),
        label: HOSTILE_LABEL,
        login: "o'neil & <co>",
        folder: HOSTILE_FOLDER,
      },
      otp: { itemId: items.ci.id, tags: ['ci', 'deploy'] },
      upstream: { url: upstreamVault.url, login: users.alice.login, apiKey: upstreamKey },
      bulkCount,
    },
  };
}
