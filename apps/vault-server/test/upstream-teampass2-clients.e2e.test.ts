/**
 * TeamPass 2 scripts on TeamPass 3: the requests the public TeamPass 2 clients send (gilcot/tapiw's
 * tpcli.sh, mrtntome/teampass-cli, mrlocke/teampass-python-utils; built here as their source
 * builds them: `?apikey=` last, values base64url with or without padding, add/folder as one
 * encoded blob) replayed against the server in front of the TeamPass 3 fake, with a key of the
 * `teampass` profile bound to an upstream account.
 */

import { startTeamPass3Fake, type TeamPass3Fake } from '@vaultline/protocol/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestVault, type TestVault } from '../src/testing.ts';
import { expectNoSecrets, rawRequest, setByBeforeAll, TEST_OPERATOR } from './support/helpers.ts';

const BOB = { login: 'bob', password: 'Bob-Script-Pw-8%', apiKey: 'bobScriptApiKey0123456789abcdefghijklmn' };
const SEEDED = 'Seeded-Item-Secret-12';

/** tapiw's `_eds`: trimmed, base64, `+/` made `-_` (padding kept). */
const eds = (text: string) =>
  Buffer.from(text.trim(), 'utf8').toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
/** Python's `base64.urlsafe_b64encode` (mrlocke, mrtntome): padding kept. */
const urlsafe = (text: string) =>
  Buffer.from(text, 'utf8').toString('base64').replace(/\+/g, '-').replace(/\//g, '_');

describe('TeamPass 2 clients in front of TeamPass 3', () => {
  let fake: TeamPass3Fake | undefined;
  let vault: TestVault | undefined;
  let key = '';
  const logLines: string[] = [];
  /** GET as the scripts send it: the path, then `?apikey=`; the body as JSON (or text). */
  const get = async (path: string) => {
    const answer = await rawRequest(
      setByBeforeAll(vault, 'the vault').url,
      `/api/index.php/${path}?apikey=${key}`,
    );
    let json: unknown;
    try {
      json = JSON.parse(answer.body);
    } catch {
      json = answer.body;
    }
    return { status: answer.status, json };
  };

  beforeAll(async () => {
    fake = await startTeamPass3Fake({
      seed: {
        folders: [{ id: 1, title: 'Servers' }],
        roles: [{ name: 'Ops', folders: { Servers: 'W' } }],
        users: [{ ...BOB, roles: ['Ops'], canCreateRootFolder: true }],
        items: [{ id: 1, label: 'os:root@web1', folder: 'Servers', password: SEEDED, url: 'ssh://web1:22' }],
      },
    });
    vault = await startTestVault({ upstreamUrl: fake.url, logLines });
    const admin = vault.server.vault.adminAs(TEST_OPERATOR);
    await admin.addUpstreamAccount({
      name: 'scripts',
      url: fake.url,
      login: BOB.login,
      method: 'password',
      secrets: { password: BOB.password, apiKey: BOB.apiKey },
    });
    key = await admin.createKey({
      label: 'tp2-scripts',
      profile: 'teampass',
      upstream: { account: 'scripts', folders: 'all', write: true },
    });
  });

  afterAll(async () => {
    await vault?.close();
    await fake?.close();
    expectNoSecrets(logLines, [BOB.password, BOB.apiKey, SEEDED, 'Tapiw-Pw-1', 'Rotated-Pw-2', key]);
  });

  it("tapiw's reads, finds, writes and new_password", async () => {
    const teampass = setByBeforeAll(fake, 'the fake');
    // The keyless probe of the endpoint: an {"err":…} body, as TeamPass answers.
    const probe = await rawRequest(setByBeforeAll(vault, 'the vault').url, '/api/index.php');
    expect(probe.body.startsWith('{')).toBe(true);
    expect((await get('read/items/1')).json).toMatchObject([{ id: '1', pw: SEEDED }]);
    expect((await get('read/folder/1')).json).toMatchObject([{ id: '1' }]);
    expect((await get('find/item/1/web1')).json).toMatchObject([{ id: '1' }]);
    const folders = (await get('read/userfolders/bob')).json as Record<string, object>;
    expect(Object.keys(folders)).toEqual(['1']);
    // tapiw reads a folder's columns by position: TeamPass 2's order, then Vaultline's own.
    expect(Object.keys(folders['1']!).slice(0, 5)).toEqual([
      'id',
      'title',
      'level',
      'parent_id',
      'access_type',
    ]);
    expect(Object.keys((await get('read/userpw/bob')).json as object)).toEqual(['1']);
    const values = [
      'tapiw item',
      'Tapiw-Pw-1',
      ' made by tpcli ',
      '1',
      'deploy',
      'ops@example.com',
      '',
      'a b',
      '0',
    ];
    const added = await get(`add/item/${values.map(eds).join(';')}`);
    expect(added).toMatchObject({ status: 200, json: { status: 'item added' } });
    const itemId = Number((added.json as { new_item_id: string }).new_item_id);
    expect(teampass.item(itemId)).toMatchObject({ folderId: 1 });
    const folder = await get(`add/folder/${eds('Scripts;0;1;0;0')}`);
    expect(folder).toMatchObject({ status: 200, json: { status: 'folder created' } });
    const folderId = Number((folder.json as { new_folder_id: string }).new_folder_id);
    expect(teampass.folder(folderId)).toMatchObject({ parentId: 1 });
    expect((await get(`delete/item/${itemId}`)).json).toEqual({ status: 'OK' });
    expect((await get(`delete/folder/${folderId}`)).json).toEqual({ status: 'OK' });
    for (const path of ['add/user/x', 'auth/https/example.com/bob/pw']) {
      const other = await get(path);
      expect(other.status).toBeLessThan(500);
      expect(other.json).toHaveProperty('err');
    }
    const generated = await get('new_password/12;1;1;1;0;1;0');
    expect((generated.json as { password: string }).password).toHaveLength(12);
  });

  it("mrlocke's password changer: read/folder, read/items, update/item with empty tags and flag", async () => {
    const teampass = setByBeforeAll(fake, 'the fake');
    const [item] = (await get('read/items/1')).json as {
      label: string;
      description: string;
      folder_id: string;
      login: string;
      email: string;
      url: string;
    }[];
    const path = [
      item!.label,
      'Rotated-Pw-2',
      item!.description,
      item!.folder_id,
      item!.login,
      item!.email,
      item!.url,
    ]
      .map(urlsafe)
      .join(';');
    const updated = await get(`update/item/1/${path};;`);
    expect(updated.json).toEqual({ status: 'item updated' });
    expect(teampass.item(1)?.password).toBe('Rotated-Pw-2');
    // Its new_password appends "0;0" to "12;1;1;1;1": read as TeamPass 2 reads it (the leading
    // number is the size), answered by the server itself, nothing sent upstream.
    const sent = teampass.requests.length;
    const generated = await get('new_password/12;1;1;1;10;0');
    expect(generated.status).toBe(200);
    expect((generated.json as { password: string }).password).toHaveLength(12);
    expect(teampass.requests.length).toBe(sent);
  });

  it("mrtntome's teampass-cli: update/item and the reads it offers", async () => {
    const teampass = setByBeforeAll(fake, 'the fake');
    const values = ['os:root@web1', SEEDED, 'restored', '1', 'root', '', 'ssh://web1:22', '', '0'];
    expect((await get(`update/item/1/${values.map(urlsafe).join(';')}`)).json).toEqual({
      status: 'item updated',
    });
    expect(teampass.item(1)?.password).toBe(SEEDED);
    for (const path of [
      'read/folder/1',
      'read/items/1',
      'read/userpw/bob',
      'read/userfolders/bob',
      'find/item/1/web1',
    ])
      expect((await get(path)).status).toBe(200);
  });
});
