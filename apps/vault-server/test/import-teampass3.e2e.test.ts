/**
 * `vaultline-server import` from TeamPass 3 (issue 20.5), against the TeamPass 3 fake of
 * `@vaultline/protocol/testing` over HTTP: what the given account sees, signed in with its login,
 * password (from stdin or the environment, never the command line) and API key; nested folders,
 * labels full of entities and emoji, 10,000 items across pages, no attachments, a re-run that adds
 * only what is new, and a failure part way that leaves nothing behind.
 */

import { startTeamPass3Fake, type TeamPass3Fake } from '@vaultline/protocol/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importVault } from '../src/import/import-vault.ts';
import { operatorActor } from '../src/store/actor.ts';
import { startTestVault } from '../src/testing.ts';
import { runCli, tempDirs } from './support/cli.ts';
import { clientOf, expectNoSecrets } from './support/helpers.ts';

const ALICE = {
  login: 'alice',
  password: 'Al1ce pass&word=+%20 ;/',
  apiKey: 'aliceKeyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
};
const BOB = { login: 'bob', password: 'B0b-pass-2026', apiKey: 'bobKeyBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB' };
const BULK_ITEMS = 10_000;
// Titles as typed in TeamPass: it stores them escaped, the core decodes them once.
const TOP = `R&D & "Ops" 'team' 🚀`;
const MIDDLE = 'Level 2 & "deux" ☕';
const DEEP = 'Level 3 &amp; more';
// TeamPass 3 stores the label and login with named entities (`M&uuml;ller`, `&euro;`, `&ldquo;`).
const HOSTILE_LABEL = `Tom & Jerry "x" 'y' 😀🎉 Müller Ärger € “q” – ß`;
const HOSTILE_LOGIN = 'tom & müller';

const tempDir = tempDirs('vaultline-import-tp3-');

interface Summary {
  ids: { kept: number; changed: { kind: string; source: number; id: number }[] };
  folders: { added: number; existing: number };
  items: { added: number; existing: number };
  files: { added: number; existing: number };
  users: { added: number; existing: number };
  rights: { added: number; existing: number };
  skipped: { what: string; reason: string }[];
}

let fake: TeamPass3Fake;
const outputs: string[] = [];

beforeAll(async () => {
  fake = await startTeamPass3Fake({
    seed: {
      folders: [
        { title: TOP, children: [{ title: MIDDLE, children: [{ title: DEEP }] }] },
        { title: 'Bulk' },
        { title: 'Not for alice' },
      ],
      roles: [
        {
          name: 'Devs',
          folders: { [TOP]: 'W', [`${TOP}/${MIDDLE}`]: 'ND', [`${TOP}/${MIDDLE}/${DEEP}`]: 'NE', Bulk: 'R' },
        },
        { name: 'Others', folders: { 'Not for alice': 'W' } },
      ],
      users: [
        { ...ALICE, roles: ['Devs'], personalFolder: true },
        { ...BOB, roles: ['Others'] },
      ],
      items: [
        {
          label: HOSTILE_LABEL,
          folder: TOP,
          password: 'p&ss <w0rd> ✓',
          login: HOSTILE_LOGIN,
          url: 'https://db.example.test/?a=1&b=2',
          description: 'line one\nline two & more',
          tags: ['prod', 'db'],
        },
        { label: 'middle item', folder: `${TOP}/${MIDDLE}`, password: 'pw-middle' },
        { label: 'deep item ☕', folder: `${TOP}/${MIDDLE}/${DEEP}`, password: 'pw-deep' },
        { label: "alice's own", folder: '~alice', password: 'pw-personal' },
        { label: 'bob only', folder: 'Not for alice', password: 'pw-bob' },
        ...Array.from({ length: BULK_ITEMS }, (_, i) => ({
          label: `bulk-${String(i).padStart(5, '0')}`,
          folder: 'Bulk',
          password: `pw-${i}`,
        })),
      ],
    },
  });
});

afterAll(async () => {
  await fake?.close();
  expectNoSecrets(outputs, [ALICE.password, ALICE.apiKey, ...fake.tokens('alice')]);
});

const secrets = () => [ALICE.password, ALICE.apiKey, ...fake.tokens('alice')];

/** `vaultline-server import` from the fake as alice, the key in the environment, the password piped or in it. */
async function importAsAlice(target: string, extra: string[] = [], options: { stdin?: boolean } = {}) {
  const env: Record<string, string> = { VAULTLINE_DATA_DIR: target, VAULTLINE_IMPORT_API_KEY: ALICE.apiKey };
  const args = ['import', '--from', fake.url, '--login', 'alice', '--json', ...extra];
  if (options.stdin === false) env.VAULTLINE_IMPORT_PASSWORD = ALICE.password;
  else args.push('--password-stdin');
  const result = await runCli(
    args,
    env,
    300_000,
    options.stdin === false ? undefined : `${ALICE.password}\n`,
  );
  outputs.push(result.stdout, result.stderr);
  for (const secret of secrets()) {
    expect(result.stdout + result.stderr).not.toContain(secret);
  }
  return result;
}

async function emptyVault(target: string): Promise<void> {
  const vault = await startTestVault({ dataDir: target });
  try {
    expect(await vault.server.vault.db.query('SELECT id FROM folders')).toEqual([]);
    expect(await vault.server.vault.db.query('SELECT id FROM items')).toEqual([]);
    expect(await vault.server.vault.db.query('SELECT login FROM users')).toEqual([]);
  } finally {
    await vault.close();
  }
}

describe('vaultline-server import from TeamPass 3', () => {
  it('says what signing in needs, and signs in with nothing it was not given', async () => {
    const target = await tempDir();
    const result = await runCli(['import', '--from', fake.url, '--login', 'alice'], {
      VAULTLINE_DATA_DIR: target,
      VAULTLINE_IMPORT_API_KEY: ALICE.apiKey,
    });
    outputs.push(result.stdout, result.stderr);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /TeamPass 3 signs in per account, with the login, the account's password and its API key: give the password on stdin \(--password-stdin\) or in VAULTLINE_IMPORT_PASSWORD/,
    );
    expect(fake.signIns('alice')).toBe(0);
    const two = await runCli(['import', '--from', fake.url, '--login', 'alice', '--login', 'bob'], {
      VAULTLINE_DATA_DIR: target,
      VAULTLINE_IMPORT_API_KEY: ALICE.apiKey,
      VAULTLINE_IMPORT_PASSWORD: ALICE.password,
    });
    outputs.push(two.stdout, two.stderr);
    expect(two.code).toBe(1);
    expect(two.stderr).toMatch(/give exactly one --login, the account to sign in as \(received 2\)/);
    expect(fake.signIns()).toBe(0);
    const empty = await runCli(['import', '--from', fake.url, '--login', 'alice', '--password-stdin'], {
      VAULTLINE_DATA_DIR: target,
      VAULTLINE_IMPORT_API_KEY: ALICE.apiKey,
    });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/Expected the secret on stdin, received nothing/);
    await emptyVault(target);
  });

  it('copies what the account sees: nested folders with their rights, items with entities and emoji, 10,000 across pages; no attachments, and says so', async () => {
    const target = await tempDir();
    const pagesBefore = fake.requests.filter((r) => r.url.includes('/item/inFolders')).length;
    const result = await importAsAlice(target);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as Summary;
    expect(summary).toMatchObject({
      folders: { added: 4, existing: 0 },
      items: { added: BULK_ITEMS + 3, existing: 0 },
      files: { added: 0, existing: 0 },
      users: { added: 1, existing: 0 },
      rights: { added: 4, existing: 0 },
    });
    expect(summary.skipped).toContainEqual({
      what: 'attachments',
      reason: 'TeamPass 3 has no attachments: none were read or imported',
    });
    expect(summary.skipped.some((s) => /a personal folder: only its owner may see it/.test(s.reason))).toBe(
      true,
    );
    // 10,000 items in pages of 500, then the three others.
    expect(
      fake.requests.filter((r) => r.url.includes('/item/inFolders')).length - pagesBefore,
    ).toBeGreaterThanOrEqual(20);
    // One sign-in, signed out at the end.
    expect(fake.sessions('alice').every((session) => session.revokedAt !== undefined)).toBe(true);

    const vault = await startTestVault({ dataDir: target });
    try {
      const client = clientOf(vault);
      const folders = await client.readUserFolders({ login: 'alice' });
      // An empty vault: every folder keeps its TeamPass id (issue 27.3), its parent too.
      const idOf = (path: string) => fake.folder(path)!.id;
      expect(folders.map((f) => [f.id, f.title, f.level, f.accessType, f.parentId]).sort()).toEqual(
        [
          [idOf(TOP), TOP, 1, 'W', 0],
          [idOf('Bulk'), 'Bulk', 1, 'R', 0],
          [idOf(`${TOP}/${MIDDLE}`), MIDDLE, 2, 'ND', idOf(TOP)],
          [idOf(`${TOP}/${MIDDLE}/${DEEP}`), DEEP, 3, 'NE', idOf(`${TOP}/${MIDDLE}`)],
        ].sort(),
      );
      expect(summary.ids).toEqual({ kept: 4 + BULK_ITEMS + 3, changed: [] });
      const items = await client.readUserItems({ login: 'alice' });
      expect(items).toHaveLength(BULK_ITEMS + 3);
      // …and every item its TeamPass id.
      // (Told apart by password: the fake keeps labels escaped, and every password here differs.)
      const sourceIds = new Map(fake.items().map((item) => [item.password, item.id]));
      expect(items.filter((item) => item.id !== sourceIds.get(item.password))).toEqual([]);
      const hostile = items.find((item) => item.label === HOSTILE_LABEL);
      expect(hostile).toMatchObject({
        password: 'p&ss <w0rd> ✓',
        login: HOSTILE_LOGIN,
        url: 'https://db.example.test/?a=1&b=2',
        description: 'line one\nline two & more',
        path: [TOP],
      });
      // The text as typed, no entity left from TeamPass's storage.
      expect(items.filter((item) => /&[A-Za-z]+;|&#[0-9]+;/.test(`${item.label} ${item.login}`))).toEqual([]);
      const tags = await vault.server.vault.db.query<{ tags: string }>(
        'SELECT tags FROM items WHERE id = $1',
        [hostile!.id],
      );
      expect(tags[0]!.tags.split(' ').sort()).toEqual(['db', 'prod']);
      expect(items.find((item) => item.label === 'deep item ☕')?.path).toEqual([TOP, MIDDLE, DEEP]);
      expect(items.find((item) => item.label === 'bulk-09999')?.password).toBe('pw-9999');
      expect(items.some((item) => item.label === "alice's own" || item.label === 'bob only')).toBe(false);
    } finally {
      await vault.close();
    }
  }, 300_000);

  it('adds only what is new on a re-run, with the password from the environment', async () => {
    const target = await tempDir();
    expect((await importAsAlice(target)).code).toBe(0);
    const again = await importAsAlice(target, [], { stdin: false });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      folders: { added: 0, existing: 4 },
      items: { added: 0, existing: BULK_ITEMS + 3 },
      users: { added: 0, existing: 1 },
      rights: { added: 0, existing: 4 },
    });
    fake.seed({ items: [{ label: 'new since & then', folder: 'Bulk', password: 'pw-new' }] });
    const third = await importAsAlice(target);
    expect(JSON.parse(third.stdout)).toMatchObject({ items: { added: 1, existing: BULK_ITEMS + 3 } });
  }, 300_000);

  it('leaves nothing half-imported when TeamPass refuses part way through the items', async () => {
    const vault = await startTestVault();
    let pages = 0;
    // After a few pages TeamPass's admin takes alice's read permission away: the next page is refused.
    const refusingLater: typeof fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.includes('/item/inFolders') && ++pages === 5) fake.setApiFlags('alice', { read: false });
      return fetch(input, init);
    };
    try {
      const failure = await importVault(vault.server.vault, operatorActor('test', 'import'), {
        from: fake.url,
        apiKey: ALICE.apiKey,
        password: ALICE.password,
        logins: ['alice'],
        dryRun: false,
        fetch: refusingLater,
      }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(Error);
      expect((failure as { code?: string }).code).toBe('forbidden');
      for (const secret of secrets()) expect(JSON.stringify(failure) + String(failure)).not.toContain(secret);
      expect(pages).toBeGreaterThanOrEqual(5);
      expect(await vault.server.vault.db.query('SELECT id FROM folders')).toEqual([]);
      expect(await vault.server.vault.db.query('SELECT id FROM items')).toEqual([]);
      expect(await vault.server.vault.db.query("SELECT login FROM users WHERE login = 'alice'")).toEqual([]);
      expect(await vault.server.vault.db.query('SELECT source_id FROM import_map')).toEqual([]);
    } finally {
      fake.setApiFlags('alice', { read: true });
      await vault.close();
    }
  }, 120_000);
});
