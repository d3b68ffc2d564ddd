/**
 * Scripts written for TeamPass 2 against keys of the `teampass` profile (issue 22.1), over HTTP as
 * those scripts call: the key first in the query, every answer parsed as JSON, any 4xx or 5xx
 * raised (`raise_for_status()`, which prints the URL, key included). Beside them, the same server
 * answers keys of the default profile as docs/api.md says, and the protocol client works with keys
 * of either profile.
 */

import { isVaultError, VaultError } from '@vaultline/protocol';
import { runConformance } from '@vaultline/protocol/conformance';
import {
  createWireClient,
  encodeValue,
  encodeValueList,
  TEAMPASS2_ERRORS,
  type WireClient,
} from '@vaultline/protocol/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestVault, type TestVault } from '../src/testing.ts';
import {
  clientOf,
  expectJsonError,
  expectNoSecrets,
  expectVaultError,
  rawRequest,
} from './support/helpers.ts';

/** What a TeamPass script got: the status, the content type, and the body parsed as JSON. */
interface ScriptAnswer {
  status: number;
  contentType: string;
  json: unknown;
}

/** A script's failure as `raise_for_status()` reports it: the status and the whole URL. */
class HttpError extends Error {}

let vault: TestVault;
let teampassKey: string;
let vaultlineKey: string;
let folderId: number;
const logLines: string[] = [];

/**
 * One call of a TeamPass script: `GET <base>/api/index.php/<path>?apikey=<key>`, raising on a 4xx
 * or 5xx as `requests`' `raise_for_status()` does, then parsing the body as JSON (a body that is
 * not JSON fails the script too).
 */
async function script(path: string, key: string): Promise<ScriptAnswer> {
  const url = `${vault.url}/api/index.php/${path}?apikey=${key}`;
  const response = await fetch(url);
  const text = await response.text();
  if (response.status >= 400) throw new HttpError(`${response.status} Client Error for url: ${url}`);
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    json: JSON.parse(text),
  };
}

/** The nine item values as TeamPass scripts write them: each base64 of its UTF-8, joined by `;`. */
function itemBlob(item: { label: string; password: string; folderId: number; login?: string }): string {
  return encodeValueList([
    item.label,
    item.password,
    'written by a TeamPass script',
    String(item.folderId),
    item.login ?? 'root',
    '',
    'https://host.example.com',
    '',
    '0',
  ]);
}

/** Folder values as TeamPass scripts write them: ONE base64 blob of the values joined by `;`. */
const folderBlob = (...values: (string | number)[]) => Buffer.from(values.join(';')).toString('base64url');

beforeAll(async () => {
  vault = await startTestVault({ logLines });
  teampassKey = await vault.admin.createKey({ label: 'legacy-scripts', profile: 'teampass' });
  vaultlineKey = await vault.admin.createKey({ label: 'modern-client' });
  folderId = (await clientOf(vault).addFolder({ folder: { title: 'Hosts', complexityLevel: 0 } })).id;
});

afterAll(async () => {
  await vault?.close();
  expectNoSecrets(logLines, [vault.adminKey, teampassKey, vaultlineKey]);
});

describe('a TeamPass script on a key of the teampass profile', () => {
  it('parses the answer of delete/item and delete/folder as JSON: {"status":"OK"}', async () => {
    const admin = clientOf(vault);
    const doomed = await admin.addFolder({ folder: { title: 'Doomed', parentId: folderId } });
    const { id } = await admin.addItem({
      item: { label: 'doomed host', password: 'pw', folderId: doomed.id },
    });
    for (const path of [`delete/item/${id}`, `delete/folder/${doomed.id}`]) {
      const answer = await script(path, teampassKey);
      expect(answer).toEqual({ status: 200, contentType: 'application/json', json: { status: 'OK' } });
    }
    expect(await admin.readItems({ ids: [id] })).toEqual([]);
    // The default profile answers the spec's text: not JSON, which the script cannot parse.
    const other = await admin.addItem({ item: { label: 'other host', password: 'pw', folderId } });
    await expect(script(`delete/item/${other.id}`, vaultlineKey)).rejects.toThrow(SyntaxError);
  });

  it("updates a folder from add/folder's five values, reading the renewal period from its own place", async () => {
    const admin = clientOf(vault);
    const parent = await admin.addFolder({ folder: { title: 'Parent' } });
    const target = await admin.addFolder({ folder: { title: 'Before', parentId: parent.id } });
    // title;complexity;parent;renewal;personal, as the script writes add/folder's.
    const five = folderBlob('Renamed by script', 50, 8, 12, 0);
    expect(await script(`update/folder/${target.id}/${five}`, teampassKey)).toMatchObject({
      status: 200,
      json: { status: 'folder updated' },
    });
    const [row] = await vault.server.vault.db.query<{
      title: string;
      complexity_level: number;
      renewal_period: number;
      parent_id: number;
    }>('SELECT title, complexity_level, renewal_period, parent_id FROM folders WHERE id = $1', [target.id]);
    // The parent value is ignored: an update moves no folder.
    expect({ ...row, parent_id: Number(row!.parent_id) }).toEqual({
      title: 'Renamed by script',
      complexity_level: 50,
      renewal_period: 12,
      parent_id: parent.id,
    });
    // Three values, and three with one more, as the spec and TeamPass read them.
    await script(`update/folder/${target.id}/${folderBlob('Three', 25, 6)}`, teampassKey);
    await script(`update/folder/${target.id}/${folderBlob('Four', 25, 3, 'extra')}`, teampassKey);
    const [after] = await vault.server.vault.db.query<{ title: string; renewal_period: number }>(
      'SELECT title, renewal_period FROM folders WHERE id = $1',
      [target.id],
    );
    expect(after).toEqual({ title: 'Four', renewal_period: 3 });
    // The default profile keeps the spec's three values.
    const strict = await rawRequest(
      vault.url,
      `/api/index.php/update/folder/${target.id}/${five}?apikey=${vaultlineKey}`,
    );
    expect(expectJsonError(strict, 400, 'invalid_request').err).toMatch(/Expected 3 folder values/);
  });

  it("answers errors with TeamPass's words and statuses, so that raise_for_status() never fires for them", async () => {
    const { id } = await clientOf(vault).addItem({
      item: { label: 'web-01', password: 'first', folderId },
    });
    const cases: [string, unknown][] = [
      [
        `add/item/${itemBlob({ label: 'WEB-01 ', password: 'x', folderId })}`,
        TEAMPASS2_ERRORS.labelExists.body,
      ],
      ['read/userpw/nobody', TEAMPASS2_ERRORS.userMissing.body],
      ['read/userfolders/nobody', TEAMPASS2_ERRORS.userMissing.body],
      [
        `add/item/${itemBlob({ label: 'lost', password: 'x', folderId: 999_999 })}`,
        TEAMPASS2_ERRORS.folderMissing.body,
      ],
      [
        `update/item/999999/${itemBlob({ label: 'gone', password: 'x', folderId })}`,
        TEAMPASS2_ERRORS.noDataExists.body,
      ],
      ['delete/folder/999999', TEAMPASS2_ERRORS.noDataExists.body],
      [
        `update/item/${id}/${itemBlob({ label: 'web-01', password: '', folderId })}`,
        { err: 'Expected a non-empty password.' },
      ],
    ];
    for (const [path, body] of cases) {
      const answer = await script(path, teampassKey);
      expect({ path, ...answer }).toEqual({ path, status: 200, contentType: 'application/json', json: body });
    }
    // The same requests on a key of the default profile: statuses that mean something.
    const conflict = await rawRequest(
      vault.url,
      `/api/index.php/add/item/${itemBlob({ label: 'WEB-01 ', password: 'x', folderId })}?apikey=${vaultlineKey}`,
    );
    expectJsonError(conflict, 409, 'duplicate_label');
    await expect(script('read/userpw/nobody', vaultlineKey)).rejects.toThrow(
      new HttpError(
        `404 Client Error for url: ${vault.url}/api/index.php/read/userpw/nobody?apikey=${vaultlineKey}`,
      ),
    );
  });

  it("answers TeamPass's 405s where TeamPass sends them: values and ids that do not decode, no such operation", async () => {
    const raw = (path: string) => rawRequest(vault.url, `/api/index.php/${path}?apikey=${teampassKey}`);
    const expected: [string, { status: number; body: unknown }][] = [
      ['add/item/bm90;ZW5vdWdo', TEAMPASS2_ERRORS.itemNotComplete],
      ['read/items/1.0', TEAMPASS2_ERRORS.itemNotNumeric],
      ['read/items/abc', TEAMPASS2_ERRORS.itemNotNumeric],
      ['read/nothing/1', TEAMPASS2_ERRORS.methodNotAuthorized],
      ['add/file', TEAMPASS2_ERRORS.methodNotAuthorized],
    ];
    for (const [path, { status, body }] of expected) {
      const answer = await raw(path);
      expect({ path, status: answer.status, body: JSON.parse(answer.body) }).toEqual({ path, status, body });
      expect(answer.body).not.toContain(teampassKey);
    }
  });

  it("finds by label as TeamPass does, where a default key's find/item matches words in every field", async () => {
    const admin = clientOf(vault);
    const { id } = await admin.addItem({
      item: {
        label: 'PostgreSQL production',
        password: 'pw',
        folderId,
        login: 'app_rw',
        url: 'db.prod.internal',
      },
    });
    const found = async (text: string, key: string) => {
      const answer = await script(`find/item/${folderId}/${encodeURIComponent(text)}`, key);
      return Array.isArray(answer.json) ? answer.json.map((item: { id: string }) => Number(item.id)) : [];
    };
    // Words across label, login and URL for the default profile…
    expect(await found('app_rw', vaultlineKey)).toContain(id);
    expect(await found('prod db', vaultlineKey)).toContain(id);
    // …the label containing the text, and nothing else, for TeamPass's scripts.
    expect(await found('app_rw', teampassKey)).not.toContain(id);
    expect(await found('production', teampassKey)).toContain(id);
  });

  it('rotates a password with new_password, then writes it with update/item', async () => {
    const admin = clientOf(vault);
    const { id } = await admin.addItem({ item: { label: 'db-02', password: 'old password', folderId } });
    const generated = await script('new_password/24;1;1;1;0;1;0', teampassKey);
    const { password } = generated.json as { password: string };
    expect(password).toHaveLength(24);
    expect(password).toMatch(/[a-z]/);
    expect(password).toMatch(/[A-Z]/);
    expect(password).toMatch(/[0-9]/);
    expect(password).toMatch(/[^A-Za-z0-9]/);
    expect(password).not.toMatch(/[lIO01]/);
    expect(
      await script(`update/item/${id}/${itemBlob({ label: 'db-02', password, folderId })}`, teampassKey),
    ).toMatchObject({
      json: { status: 'item updated' },
    });
    expect((await admin.getItem(id)).password).toBe(password);
    // base64, as TeamPass sends it when asked; symbols off; and Vaultline's eighth value.
    const encoded = (await script('new_password/12;0;1;1;0;0;1', teampassKey)).json as { password: string };
    expect(Buffer.from(encoded.password, 'base64').toString()).toMatch(/^[A-Za-z2-9]{12}$/);
    const strong = (await script('new_password/;1;1;1;0;1;0;90', teampassKey)).json as { password: string };
    expect(strong.password).toHaveLength(23);
    expect((await script('new_password/8;1;1;1;0;1;0;90', teampassKey)).json).toEqual({
      err: 'Complexity level 90 needs 128 bits: at least 23 characters from these classes, received a length of 8.',
    });
    // Every profile has it; the default answers its refusals as it does every other.
    const onDefault = (await script('new_password/16', vaultlineKey)).json as { password: string };
    expect(onDefault.password).toHaveLength(16);
    expectJsonError(
      await rawRequest(vault.url, `/api/index.php/new_password/3?apikey=${vaultlineKey}`),
      400,
      'invalid_request',
    );
    // A generated password is nobody's secret read: no audit record. A secret read made after it
    // is recorded (reads are written in batches): once it is there, one for new_password would be.
    const after = await admin.addItem({ item: { label: 'db-03', password: 'pw', folderId } });
    await admin.readItems({ ids: [after.id] });
    const deadline = Date.now() + 10_000;
    while (
      !(
        await vault.server.vault.db.query("SELECT 1 FROM audit WHERE action = 'read/items' AND target = $1", [
          `items ${after.id}`,
        ])
      ).length
    ) {
      if (Date.now() > deadline) throw new Error('the read was never audited');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const audit = await vault.server.vault.db.query("SELECT 1 FROM audit WHERE action = 'new_password'");
    expect(audit).toEqual([]);
  });

  it('reads api-version from info/version with the key; without a key, or with a default one, the identification', async () => {
    expect(await script('info/version', teampassKey)).toEqual({
      status: 200,
      contentType: 'application/json',
      json: { 'api-version': '2.1.5' },
    });
    const bearer = await rawRequest(vault.url, '/api/index.php/info/version', {
      headers: { authorization: `Bearer ${teampassKey}` },
    });
    expect(JSON.parse(bearer.body)).toEqual({ 'api-version': '2.1.5' });
    const identification = { server: 'vaultline', features: expect.any(Array) };
    expect((await script('info/version', vaultlineKey)).json).toMatchObject(identification);
    expect(JSON.parse((await rawRequest(vault.url, '/api/index.php/info/version')).body)).toMatchObject(
      identification,
    );
    // A key sent is checked: a wrong one is refused (and counted) rather than ignored.
    expectJsonError(
      await rawRequest(vault.url, '/api/index.php/info/version?apikey=vlk_wrong'),
      401,
      'unauthorized',
    );
    // A proxy's own Authorization scheme is no key of this API.
    const basic = await rawRequest(vault.url, '/api/index.php/info/version', {
      headers: { authorization: 'Basic dXNlcjpwYXNz' },
    });
    expect(JSON.parse(basic.body)).toMatchObject(identification);
  });

  it("answers a key's own refusals as TeamPass where the key is known, and as the server where it is not", async () => {
    const limited = await vault.admin.createKey({
      label: 'legacy-from-elsewhere',
      profile: 'teampass',
      allowIps: ['10.0.0.0/8'],
    });
    const refused = await rawRequest(vault.url, `/api/index.php/read/items/1?apikey=${limited}`);
    expect({ status: refused.status, body: JSON.parse(refused.body) }).toEqual(TEAMPASS2_ERRORS.ipNotAllowed);
    // Unknown and revoked keys: the server cannot know the caller's profile.
    expectJsonError(
      await rawRequest(vault.url, '/api/index.php/read/items/1?apikey=vlk_unknown'),
      401,
      'unauthorized',
    );
    await vault.admin.revokeKey('legacy-from-elsewhere');
    expectJsonError(
      await rawRequest(vault.url, `/api/index.php/read/items/1?apikey=${limited}`),
      401,
      'unauthorized',
    );
  });

  it("answers a user-bound key's refusals in its own words with HTTP 200, as TeamPass would", async () => {
    await vault.admin.createUser({ login: 'olga' });
    const olgaKey = await vault.admin.createKey({
      label: 'olga-scripts',
      login: 'olga',
      profile: 'teampass',
    });
    const answer = await script('read/userpw/alice', olgaKey);
    expect(answer.json).toEqual({ err: "A user-bound key may only read its own user's items and folders." });
    const adding = await script(`add/folder/${folderBlob('Mine', 0, 0, 0, 0)}`, olgaKey);
    expect(adding.json).toEqual({ err: 'Only an admin key may create public folders.' });
  });
});

describe('the protocol client with a key of either profile', () => {
  const flow = async (client: WireClient) => {
    const folder = await client.addFolder({ folder: { title: `Flow ${Math.random()}` } });
    await client.updateFolder({
      id: folder.id,
      folder: { title: 'Flow renamed', complexityLevel: 25, renewalPeriod: 1 },
    });
    const label = `flow item ${Math.random()}`;
    const { id } = await client.addItem({ item: { label, password: 'pw ✓ ;/+=', folderId: folder.id } });
    const duplicate = await client
      .addItem({ item: { label: label.toUpperCase(), password: 'x', folderId: folder.id } })
      .catch((error: unknown) => error);
    expect(isVaultError(duplicate, 'duplicate_label')).toBe(true);
    expect((await client.getItem(id)).password).toBe('pw ✓ ;/+=');
    expect((await client.findItems({ folderIds: [folder.id], query: 'FLOW ITEM' })).map((i) => i.id)).toEqual(
      [id],
    );
    await expectVaultError(client.readUserItems({ login: 'nobody' }), 'not_found');
    await expectVaultError(client.getItem(999_999), 'not_found');
    await expectVaultError(
      client.updateItem({ id: 999_999, item: { label: 'x', password: 'y', folderId: folder.id } }),
      'not_found',
    );
    expect(
      (await client.generatePassword({ rules: { length: 30, complexityLevel: 90 } })).password,
    ).toHaveLength(30);
    expect(await client.deleteItems({ ids: [id] })).toEqual({ status: 'OK' });
    expect(await client.deleteFolders({ ids: [folder.id] })).toEqual({ status: 'OK' });
    await expectVaultError(client.deleteItems({ ids: [id] }), 'not_found');
    return (await client.capabilities()).server;
  };

  it.each([
    ['teampass', () => teampassKey],
    ['vaultline', () => vaultlineKey],
  ] as const)('works with a %s key: its keyless probe finds a Vaultline server', async (_profile, key) => {
    const client = createWireClient({ baseUrl: vault.url, auth: key(), retry: { retries: 0 } });
    expect(await flow(client)).toBe('vaultline');
  });

  it('works with a teampass key sent in the query, as TeamPass clients send it', async () => {
    const client = createWireClient({
      baseUrl: vault.url,
      auth: teampassKey,
      retry: { retries: 0 },
      legacy: { keyTransport: 'query' },
    });
    expect(await flow(client)).toBe('vaultline');
  });

  it('reads a user-bound teampass key’s refusals as forbidden, from their words alone', async () => {
    await vault.admin.createUser({ login: 'pavel' });
    const key = await vault.admin.createKey({ label: 'pavel-client', login: 'pavel', profile: 'teampass' });
    const client = createWireClient({ baseUrl: vault.url, auth: key, retry: { retries: 0 } });
    const error = await client.readUserItems({ login: 'alice' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VaultError);
    expect((error as VaultError).code).toBe('forbidden');
    await expectVaultError(client.addFolder({ folder: { title: 'Public' } }), 'forbidden');
  });

  it("generates for the rules mrlocke's teampass-changer sends, read as TeamPass reads them (issue 27.5)", async () => {
    // teampass-changer joins size, secure, capitalize and ambiguous with ':' and appends '0;0';
    // its library's default rules are '12;1;1;1;1' + '0;0'. TeamPass reads the number the first
    // value starts with, and a flag only when it is exactly 1.
    const changer = (await script('new_password/12:1:1:10;0', teampassKey)).json as { password: string };
    expect(changer.password).toMatch(/^[A-Za-z2-9]{12}$/);
    const byDefault = (await script('new_password/12;1;1;1;10;0', teampassKey)).json as { password: string };
    expect(byDefault.password).toHaveLength(12);
    // secure (the second value) is 1: every class, symbols included, look-alikes left out.
    expect(byDefault.password).toMatch(/[^A-Za-z0-9]/);
    expect(byDefault.password).not.toMatch(/[lIO01]/);
    // Numerals and capitalize never turn letters or digits off on TeamPass; a size of none is 8.
    const plain = (await script('new_password/x;0;0;0', teampassKey)).json as { password: string };
    expect(plain.password).toMatch(/^[A-Za-z2-9]{8}$/);
    // No rules at all: TeamPass's answer, not a password made on defaults.
    for (const path of ['new_password/', 'new_password'])
      expect(await script(path, teampassKey), path).toEqual({
        status: 200,
        contentType: 'application/json',
        json: TEAMPASS2_ERRORS.noParameters.body,
      });
    // The default profile keeps the spec's strict reading.
    expectJsonError(
      await rawRequest(vault.url, `/api/index.php/new_password/12:1:1:10;0?apikey=${vaultlineKey}`),
      400,
      'invalid_request',
    );
  });

  it('answers info/complexicity_levels_list as TeamPass does, and the default profile does not know it', async () => {
    expect(await script('info/complexicity_levels_list', teampassKey)).toEqual({
      status: 200,
      contentType: 'application/json',
      json: {
        '0': 'Very weak',
        '25': 'Weak',
        '50': 'Medium',
        '60': 'Strong',
        '70': 'Very strong',
        '80': 'Heavy',
        '90': 'Very heavy',
      },
    });
    expect(
      (await rawRequest(vault.url, `/api/index.php/info/complexicity_levels_list?apikey=${vaultlineKey}`))
        .status,
    ).toBe(404);
  });

  it("sends read/userfolders fields in TeamPass's order, for scripts that read them by position (tapiw)", async () => {
    await vault.admin.createUser({ login: 'tapiw' });
    await vault.admin.createRole({ name: 'tapiw-readers' });
    await vault.admin.assignRole('tapiw', 'tapiw-readers');
    await vault.admin.grant('tapiw-readers', folderId, 'W');
    const json = (await script('read/userfolders/tapiw', teampassKey)).json as Record<string, object>;
    expect(Object.keys(json[String(folderId)]!).slice(0, 5)).toEqual([
      'id',
      'title',
      'level',
      'parent_id',
      'access_type',
    ]);
  });

  it('deletes at most four folders per delete/folder, as TeamPass: five get "No folder specified" and stay', async () => {
    const admin = clientOf(vault);
    const ids: number[] = [];
    for (const n of [1, 2, 3, 4, 5])
      ids.push((await admin.addFolder({ folder: { title: `Batch ${n}`, parentId: folderId } })).id);
    expect(await script(`delete/folder/${ids.join(';')}`, teampassKey)).toEqual({
      status: 200,
      contentType: 'application/json',
      json: TEAMPASS2_ERRORS.noFolderSpecified.body,
    });
    expectJsonError(
      await rawRequest(vault.url, `/api/index.php/delete/folder/${ids.join(';')}?apikey=${vaultlineKey}`),
      400,
      'invalid_request',
    );
    const left = await vault.server.vault.db.query('SELECT id FROM folders WHERE id = ANY($1::bigint[])', [
      ids,
    ]);
    expect(left).toHaveLength(5);
    // Four in one call, as TeamPass deletes them; the client splits longer lists itself.
    expect((await script(`delete/folder/${ids.slice(0, 4).join(';')}`, teampassKey)).json).toEqual({
      status: 'OK',
    });
    await admin.deleteFolders({ ids: [ids[4]!] });
  });

  it('passes the conformance suite with a key of the teampass profile', async () => {
    await vault.admin.createUser({ login: 'quinn' });
    const key = await vault.admin.createKey({ label: 'conformance-teampass', profile: 'teampass' });
    const report = await runConformance({ baseUrl: vault.url, apiKey: key, login: 'quinn' });
    expect(report.results.filter((result) => result.ok !== true)).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it('keeps its key out of every message, whatever the profile', async () => {
    const client = createWireClient({
      baseUrl: vault.url,
      auth: teampassKey,
      retry: { retries: 0 },
      legacy: { keyTransport: 'query' },
    });
    const error = await client.readUserItems({ login: 'nobody' }).catch((e: unknown) => e);
    expect(JSON.stringify(error)).not.toContain(teampassKey);
    expect(String((error as Error).message)).not.toContain(teampassKey);
    expect(encodeValue('x')).toBe('eA==');
  });
});
