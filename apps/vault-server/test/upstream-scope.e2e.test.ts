/**
 * The scope of a machine key in upstream mode, over HTTP against the real server in front of the
 * TeamPass 3 fake (and the TeamPass 2 one): every operation of the endpoint table tried outside a
 * key's scope, which must answer as for what does not exist (or refuse) and change nothing
 * upstream; writes that would widen a scope refused; path scopes a rename cannot move.
 */

import {
  type ReplayServer,
  startReplayServer,
  startTeamPass3Fake,
  type TeamPass3Fake,
} from '@vaultline/protocol/testing';
import {
  ENDPOINT_NAMES,
  type EndpointName,
  encodeFolderValues,
  encodeItemValues,
} from '@vaultline/protocol/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_RULES } from '../src/store/upstream-scope.ts';
import { startTestVault, type TestVault } from '../src/testing.ts';
import type { VaultAdmin } from '../src/vault.ts';
import {
  expectJsonError,
  expectNoSecrets,
  rawRequest,
  setByBeforeAll,
  TEST_OPERATOR,
} from './support/helpers.ts';

const ALICE = {
  login: 'alice',
  password: 'Alice-Scope-Pw-4#',
  apiKey: 'aliceScopeApiKey0123456789abcdefghijkl',
};
const SECRETS = ['Prod-Scope-Pw-1', 'Web-Scope-Pw-2', 'Staging-Scope-Pw-3', 'Other-Scope-Pw-4'];

type Answer = Awaited<ReturnType<typeof rawRequest>>;

async function api(
  vault: TestVault,
  key: string,
  path: string,
  init: { method?: string; body?: FormData } = {},
) {
  if (init.body) {
    const response = await fetch(`${vault.url}/api/index.php${path}`, {
      method: init.method ?? 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: init.body,
    });
    const answer: Answer = {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      body: await response.text(),
      headers: {},
    };
    return answer;
  }
  return rawRequest(vault.url, `/api/index.php${path}`, { headers: { authorization: `Bearer ${key}` } });
}

const item = (label: string, folderId: number) =>
  encodeItemValues({ label, password: 'Planted-Pw-9', folderId, description: '', login: 'ci' });
const newFolder = (title: string, parentId: number) =>
  encodeFolderValues([title, '0', String(parentId), '0', '0']);
const folderUpdate = (title: string) => encodeFolderValues([title, '0', '0']);

/**
 * One case per operation: a request outside the key's scope, and either the request for what does
 * not exist that it must be answered like, or the status it must get.
 */
interface OutsideCase {
  readonly path: string;
  readonly form?: () => FormData;
  readonly like?: string;
  readonly status?: number;
  /** For reads answered with a body: what the answer must not hold. */
  readonly hides?: readonly string[];
}

describe('the scope of a machine key in front of TeamPass 3', () => {
  let fake: TeamPass3Fake | undefined;
  let vault: TestVault | undefined;
  const logLines: string[] = [];
  const keys: Record<string, string> = {};
  const get = () => ({ fake: setByBeforeAll(fake, 'the fake'), vault: setByBeforeAll(vault, 'the vault') });
  const admin = (): VaultAdmin => get().vault.server.vault.adminAs(TEST_OPERATOR);

  beforeAll(async () => {
    fake = await startTeamPass3Fake({
      seed: {
        folders: [
          { id: 10, title: 'Prod', children: [{ id: 11, title: 'Web' }] },
          { id: 12, title: 'Staging' },
          { id: 13, title: 'Other' },
        ],
        roles: [{ name: 'Devs', folders: { Prod: 'W', 'Prod/Web': 'W', Staging: 'W', Other: 'W' } }],
        users: [{ ...ALICE, roles: ['Devs'], canCreateRootFolder: true }],
        items: [
          { id: 20, label: 'prod db', folder: 'Prod', password: SECRETS[0]! },
          { id: 21, label: 'web token', folder: 'Prod/Web', password: SECRETS[1]! },
          { id: 22, label: 'staging db', folder: 'Staging', password: SECRETS[2]! },
          { id: 23, label: 'other secret', folder: 'Other', password: SECRETS[3]!, totp: 'JBSWY3DPEHPK3PXP' },
        ],
      },
    });
    vault = await startTestVault({ upstreamUrl: fake.url, logLines });
    await admin().addUpstreamAccount({
      name: 'ci',
      url: fake.url,
      login: ALICE.login,
      method: 'password',
      secrets: { password: ALICE.password, apiKey: ALICE.apiKey },
    });
    keys.narrow = await admin().createKey({
      label: 'narrow',
      upstream: { account: 'ci', folders: [10], write: true },
    });
    keys.tree = await admin().createKey({
      label: 'tree',
      upstream: { account: 'ci', folders: [10], subfolders: true, write: true },
    });
    keys.readOnly = await admin().createKey({
      label: 'read-only',
      upstream: { account: 'ci', folders: [12] },
    });
  });

  afterAll(async () => {
    await vault?.close();
    await fake?.close();
    expectNoSecrets(logLines, [ALICE.password, ALICE.apiKey, ...SECRETS, ...Object.values(keys)]);
  });

  const outside: { readonly [K in EndpointName]: OutsideCase } = {
    addItem: { path: `/add/item/${item('planted', 13)}`, like: `/add/item/${item('planted', 999)}` },
    updateItem: {
      path: `/update/item/23/${item('taken', 10)}`,
      like: `/update/item/999/${item('taken', 10)}`,
    },
    deleteItems: { path: '/delete/item/21', like: '/delete/item/999' },
    addFolder: {
      path: `/add/folder/${newFolder('Planted', 13)}`,
      like: `/add/folder/${newFolder('Planted', 999)}`,
    },
    updateFolder: {
      path: `/update/folder/13/${folderUpdate('Prod')}`,
      like: `/update/folder/999/${folderUpdate('Prod')}`,
    },
    // Folder 10 is in the scope, its subfolder 11 is not: TeamPass would delete both.
    deleteFolders: { path: '/delete/folder/10', status: 403 },
    addFile: {
      path: '/add/file',
      form: () => {
        const form = new FormData();
        form.append('item_id', '23');
        form.append('file', new Blob(['x']), 'x.txt');
        return form;
      },
      status: 501,
    },
    readFolders: { path: '/read/folder/11;13', like: '/read/folder/998;999' },
    readItems: { path: '/read/items/21;23', like: '/read/items/998;999' },
    readUserItems: { path: '/read/userpw/alice', hides: ['"21"', '"22"', '"23"', ...SECRETS.slice(1)] },
    readUserFolders: { path: '/read/userfolders/alice', hides: ['"11"', '"12"', '"13"'] },
    listFiles: { path: '/read/listfiles/23', like: '/read/listfiles/999' },
    downloadFile: { path: '/read/files/1', status: 501 },
    findItems: { path: '/find/item/11;13/e', like: '/find/item/998;999/e' },
    readOtp: { path: '/read/otp/23', like: '/read/otp/999' },
    generatePassword: { path: '/new_password/12;1;1;1;0;1;0', status: 200 },
  };

  it('has a scope rule and a case here for every operation of the endpoint table', () => {
    expect(Object.keys(SCOPE_RULES).sort()).toEqual([...ENDPOINT_NAMES].sort());
    expect(Object.keys(outside).sort()).toEqual([...ENDPOINT_NAMES].sort());
  });

  it.each(ENDPOINT_NAMES)(
    '%s outside the scope: answered as for what does not exist, nothing changed upstream',
    async (name) => {
      const { vault, fake } = get();
      const test = outside[name];
      const before = JSON.stringify({ items: fake.items(), folders: fake.folders() });
      const answer = await api(vault, keys.narrow!, test.path, test.form ? { body: test.form() } : {});
      if (test.like !== undefined) {
        const like = await api(vault, keys.narrow!, test.like);
        expect(answer.status).toBe(like.status);
        const numbers = /\b(?:1[0-9]|2[0-9]|99[0-9])\b/g;
        expect(answer.body.replace(numbers, 'N')).toBe(like.body.replace(numbers, 'N'));
      }
      if (test.status !== undefined) expect(answer.status).toBe(test.status);
      for (const hidden of test.hides ?? []) expect(answer.body).not.toContain(hidden);
      expect(JSON.stringify({ items: fake.items(), folders: fake.folders() })).toBe(before);
      for (const secret of SECRETS.slice(1)) expect(answer.body).not.toContain(secret);
      // A key bound to no account: 403 on every operation, as docs/upstream.md says.
      const unbound = await api(vault, vault.adminKey, test.path, test.form ? { body: test.form() } : {});
      expect(unbound.status, unbound.body).toBe(403);
    },
  );

  it('deletes a folder only when its whole subtree is in the scope', async () => {
    const { vault, fake } = get();
    const made = await api(vault, keys.tree!, `/add/folder/${newFolder('Scratch', 11)}`);
    expect(made.status).toBe(200);
    const id = Number((JSON.parse(made.body) as { new_folder_id: string }).new_folder_id);
    expect(fake.folder(id)?.parentId).toBe(11);
    // The subtree-scoped key sees what it made.
    expect(Object.keys(JSON.parse((await api(vault, keys.tree!, '/read/userfolders/alice')).body))).toContain(
      String(id),
    );
    expect((await api(vault, keys.tree!, `/delete/folder/${id}`)).status).toBe(200);
    const body = expectJsonError(await api(vault, keys.narrow!, '/delete/folder/10'), 403, 'forbidden');
    expect(body.err).toMatch(/subfolders outside this key's scope/);
    expect(fake.folder(11)).toBeDefined();
  });

  it('refuses a folder the key could not see once made', async () => {
    const { vault, fake } = get();
    const count = fake.folders().length;
    const body = expectJsonError(
      await api(vault, keys.narrow!, `/add/folder/${newFolder('Hidden', 10)}`),
      403,
      'forbidden',
    );
    expect(body.err).toMatch(/outside its scope/);
    expectJsonError(await api(vault, keys.tree!, `/add/folder/${newFolder('Root', 0)}`), 404, 'not_found');
    expect(fake.folders().length).toBe(count);
  });

  it('keeps a path scope on the folder it named when made, whatever is renamed later', async () => {
    const { vault, fake } = get();
    const byPath = await admin().createKey({
      label: 'staging-by-path',
      upstream: { account: 'ci', folders: [], paths: ['Staging'] },
    });
    keys.byPath = byPath;
    expect((await admin().listKeys()).find((key) => key.label === 'staging-by-path')?.scope).toEqual([12]);
    // A writable key renames its own folder to the path another key was made with…
    const all = await admin().createKey({
      label: 'all-writer',
      upstream: { account: 'ci', folders: 'all', write: true },
    });
    keys.all = all;
    expect((await api(vault, all, `/update/folder/12/${folderUpdate('Staging-old')}`)).status).toBe(200);
    expect((await api(vault, all, `/update/folder/13/${folderUpdate('Staging')}`)).status).toBe(200);
    expect(fake.folder(13)?.title).toBe('Staging');
    // …and the path-scoped key still reads folder 12's item, never 13's.
    const read = JSON.parse((await api(vault, byPath, '/read/items/22;23')).body) as { id: string }[];
    expect(read.map((found) => found.id)).toEqual(['22']);
    await api(vault, all, `/update/folder/13/${folderUpdate('Other')}`);
    await api(vault, all, `/update/folder/12/${folderUpdate('Staging')}`);
  });

  it('reports rights as the key may use them: a read-only key reads its folders as R', async () => {
    const { vault } = get();
    const folders = JSON.parse((await api(vault, keys.readOnly!, '/read/userfolders/alice')).body) as Record<
      string,
      { access_type: string }
    >;
    expect(Object.keys(folders)).toEqual(['12']);
    expect(folders['12']!.access_type).toBe('R');
    const writable = JSON.parse((await api(vault, keys.narrow!, '/read/userfolders/alice')).body) as Record<
      string,
      { access_type: string }
    >;
    expect(writable['10']!.access_type).toBe('W');
  });

  it('audits what was served, and marks what was outside the scope or missing', async () => {
    const { vault } = get();
    await api(vault, keys.narrow!, '/read/items/20;23;999');
    let entry: { target: string } | undefined;
    // The audit of reads is written behind the answer: wait for it.
    for (;;) {
      entry = (await admin().listAudit({ limit: 200, action: 'read/items' })).find(
        (found) => found.keyLabel === 'narrow' && found.target.startsWith('items 20'),
      );
      if (entry) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(entry.target).toBe('items 20 (outside the scope: 23; missing: 999)');
  });
});

describe('the scope of a machine key in front of TeamPass 2', () => {
  let teampass: ReplayServer | undefined;
  let vault: TestVault | undefined;
  const TP2_KEY = 'tp2-scope-key-0123456789';
  let allKey = '';
  let scriptKey = '';

  beforeAll(async () => {
    teampass = await startReplayServer({ apiKey: TP2_KEY });
    vault = await startTestVault({ upstreamUrl: teampass.url });
    const admin = vault.server.vault.adminAs(TEST_OPERATOR);
    await admin.addUpstreamAccount({
      name: 'legacy',
      url: teampass.url,
      login: '',
      method: 'api-key',
      secrets: { apiKey: TP2_KEY },
    });
    allKey = await admin.createKey({
      label: 'tp2-all',
      upstream: { account: 'legacy', folders: 'all', write: true },
    });
    scriptKey = await admin.createKey({
      label: 'tp2-script',
      profile: 'teampass',
      upstream: { account: 'legacy', folders: [1], write: true },
    });
  });

  afterAll(async () => {
    await vault?.close();
    await teampass?.close();
  });

  it('never forwards add/folder under a parent TeamPass 2 cannot vouch for', async () => {
    const v = setByBeforeAll(vault, 'the vault');
    const tp = setByBeforeAll(teampass, 'TeamPass 2');
    const sent = tp.requests.length;
    const body = expectJsonError(
      await api(v, allKey, `/add/folder/${newFolder('Orphan', 424242)}`),
      403,
      'forbidden',
    );
    expect(body.err).toMatch(/TeamPass 2 cannot tell whether the parent folder exists/);
    expect(tp.requests.slice(sent).some((request) => request.url.includes('add/folder'))).toBe(false);
    expect((await api(v, allKey, `/add/folder/${newFolder('Top', 0)}`)).status).toBe(200);
  });

  it("answers a key of the teampass profile with TeamPass's own error words, unwrapped", async () => {
    const v = setByBeforeAll(vault, 'the vault');
    const duplicate = await api(v, scriptKey, `/add/item/${item('db', 1)}`);
    expect(duplicate.status, duplicate.body).toBe(200);
    expect(JSON.parse(duplicate.body)).toEqual({ err: 'Label already exists' });
    // The default profile keeps naming the upstream.
    const named = expectJsonError(await api(v, allKey, `/add/item/${item('db', 1)}`), 409, 'duplicate_label');
    expect(named.err).toMatch(/^Upstream TeamPass: /);
  });
});
