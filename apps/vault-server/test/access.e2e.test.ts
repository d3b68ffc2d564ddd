import { ACCESS_TYPES, RIGHTS as RIGHTS_TABLE } from '@vaultline/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { clientOf, expectJsonError, expectVaultError, rawRequest, STORES } from './support/helpers.ts';
import { vaultForSuite } from './support/vault-for-suite.ts';

describe.each(STORES)('vault server rights and keys on %s', (store) => {
  const suite = vaultForSuite(store);
  const { pw, secrets } = suite;

  describe('access matrix: users × folders × rights', () => {
    // Driven by the core's one rights table (tested row by row in packages/protocol): the server
    // must allow exactly what each row says.
    const RIGHTS = ACCESS_TYPES;
    const EXPECT = Object.fromEntries(
      RIGHTS.map((right) => [
        right,
        { add: RIGHTS_TABLE[right].add, edit: RIGHTS_TABLE[right].edit, delete: RIGHTS_TABLE[right].delete },
      ]),
    ) as Record<(typeof RIGHTS)[number], { add: boolean; edit: boolean; delete: boolean }>;
    const folderOf: Record<string, number> = {};
    let hidden: number;
    let keys: Record<string, string>;

    beforeAll(async () => {
      for (const right of RIGHTS)
        folderOf[right] = (await suite.admin.addFolder({ folder: { title: `Matrix ${right}` } })).id;
      hidden = (await suite.admin.addFolder({ folder: { title: 'Matrix hidden' } })).id;
      keys = {};
      for (const right of RIGHTS) {
        const login = `m-${right.toLowerCase()}`;
        await suite.vault.admin.createUser({ login, email: `${login}@example.com` });
        await suite.vault.admin.createRole({ name: `role-${right}` });
        await suite.vault.admin.assignRole(login, `role-${right}`);
        // Every user gets R on every matrix folder through a shared role, and its own right on one folder.
        await suite.vault.admin.grant(`role-${right}`, folderOf[right]!, right);
        keys[right] = await suite.vault.admin.createKey({ label: `matrix-${right}`, login });
        secrets.push(keys[right]);
      }
      await suite.vault.admin.createRole({ name: 'matrix-readers' });
      for (const right of RIGHTS)
        await suite.vault.admin.assignRole(`m-${right.toLowerCase()}`, 'matrix-readers');
      for (const right of RIGHTS) await suite.vault.admin.grant('matrix-readers', folderOf[right]!, 'R');
    });

    for (const right of RIGHTS) {
      it(`a user with ${right} may ${
        Object.entries(EXPECT[right])
          .filter(([, v]) => v)
          .map(([k]) => k)
          .join(', ') || 'only read'
      }`, async () => {
        const user = clientOf(suite.vault, keys[right]);
        const folderId = folderOf[right]!;
        const seeded = await suite.admin.addItem({
          item: { label: `seed ${right}`, password: pw(`pw-seed-${right}`), folderId },
        });
        expect((await user.readItems({ ids: [seeded.id] })).map((i) => i.password)).toEqual([
          `pw-seed-${right}`,
        ]);
        expect((await user.readFolders({ ids: [folderId] })).map((i) => i.id)).toContain(seeded.id);

        const add = user.addItem({ item: { label: `by user ${right}`, password: 'x', folderId } });
        if (EXPECT[right].add) expect((await add).id).toBeGreaterThan(0);
        else await expectVaultError(add, 'forbidden', 403);

        const edit = user.updateItem({
          id: seeded.id,
          item: { label: `seed ${right} edited`, password: 'y', folderId },
        });
        if (EXPECT[right].edit) expect((await edit).status).toBe('item updated');
        else await expectVaultError(edit, 'forbidden', 403);

        const del = user.deleteItems({ ids: [seeded.id] });
        if (EXPECT[right].delete) expect(await del).toEqual({ status: 'OK' });
        else await expectVaultError(del, 'forbidden', 403);

        const folders = await user.readUserFolders({ login: `m-${right.toLowerCase()}` });
        expect(folders.find((f) => f.id === folderId)?.accessType).toBe(right);
        expect(folders.some((f) => f.id === hidden)).toBe(false);
      });
    }

    it('hides folders without a right: reads leave them out, writes answer 404', async () => {
      const user = clientOf(suite.vault, keys.W);
      const secret = await suite.admin.addItem({
        item: { label: 'hidden item', password: pw('pw-hidden'), folderId: hidden },
      });
      expect(await user.readItems({ ids: [secret.id] })).toEqual([]);
      expect(await user.readFolders({ ids: [hidden] })).toEqual([]);
      expect(await user.findItems({ folderIds: [hidden], query: 'hidden' })).toEqual([]);
      await expectVaultError(
        user.updateItem({ id: secret.id, item: { label: 'h', password: 'x', folderId: hidden } }),
        'not_found',
        404,
      );
      await expectVaultError(user.deleteItems({ ids: [secret.id] }), 'not_found', 404);
      await expectVaultError(
        user.addItem({ item: { label: 'into hidden', password: 'x', folderId: hidden } }),
        'not_found',
        404,
      );
      await expectVaultError(user.listFiles({ itemId: secret.id }), 'not_found', 404);
      const items = await user.readUserItems({ login: 'm-w' });
      expect(items.some((i) => i.id === secret.id)).toBe(false);
    });

    it('gives a user with several roles the most permissive right (ND + NE = W, R + NDNE = NDNE)', async () => {
      const folder = await suite.admin.addFolder({ folder: { title: 'Union' } });
      const folder2 = await suite.admin.addFolder({ folder: { title: 'Union 2' } });
      await suite.vault.admin.createUser({ login: 'multi' });
      for (const [role, right, id] of [
        ['u-nd', 'ND', folder.id],
        ['u-ne', 'NE', folder.id],
        ['u-r', 'R', folder2.id],
        ['u-ndne', 'NDNE', folder2.id],
      ] as const) {
        await suite.vault.admin.createRole({ name: role });
        await suite.vault.admin.assignRole('multi', role);
        await suite.vault.admin.grant(role, id, right);
      }
      const folders = await suite.admin.readUserFolders({ login: 'multi' });
      expect(Object.fromEntries(folders.map((f) => [f.title, f.accessType]))).toEqual({
        Union: 'W',
        'Union 2': 'NDNE',
      });
      const key = await suite.vault.admin.createKey({ label: 'multi-key', login: 'multi' });
      secrets.push(key);
      const user = clientOf(suite.vault, key);
      const { id } = await user.addItem({
        item: { label: 'multi item', password: 'x', folderId: folder.id },
      });
      await user.updateItem({ id, item: { label: 'multi item 2', password: 'x', folderId: folder.id } });
      await user.deleteItems({ ids: [id] });
    });

    it('takes a right away on revoke', async () => {
      const user = clientOf(suite.vault, keys.R);
      expect((await user.readUserFolders({ login: 'm-r' })).some((f) => f.id === folderOf.R)).toBe(true);
      await suite.vault.admin.revoke('role-R', folderOf.R!);
      await suite.vault.admin.revoke('matrix-readers', folderOf.R!);
      expect((await user.readUserFolders({ login: 'm-r' })).some((f) => f.id === folderOf.R)).toBe(false);
    });
  });

  describe('user-bound keys and personal folders', () => {
    let aliceKey: string;
    let bobKey: string;
    let aliceId: number;

    beforeAll(async () => {
      aliceId = (await suite.vault.admin.createUser({ login: 'p-alice' })).id;
      await suite.vault.admin.createUser({ login: 'p-bob' });
      aliceKey = await suite.vault.admin.createKey({ label: 'p-alice-key', login: 'p-alice' });
      bobKey = await suite.vault.admin.createKey({ label: 'p-bob-key', login: 'p-bob' });
      secrets.push(aliceKey, bobKey);
    });

    it("reads only the key's own user with read/userpw and read/userfolders", async () => {
      const alice = clientOf(suite.vault, aliceKey);
      expect(await alice.readUserFolders({ login: 'p-alice' })).toEqual([]);
      await expectVaultError(alice.readUserItems({ login: 'p-bob' }), 'forbidden', 403);
      await expectVaultError(alice.readUserFolders({ login: 'p-bob' }), 'forbidden', 403);
      await expectVaultError(suite.admin.readUserItems({ login: 'nobody-here' }), 'not_found', 404);
      const sql = await rawRequest(
        suite.vault.url,
        `/api/index.php/read/userpw/x'%20OR%20'1'='1?apikey=${suite.vault.adminKey}`,
      );
      expectJsonError(sql, 404, 'not_found');
    });

    it('lets a user create only their own personal folder, visible to them alone', async () => {
      const alice = clientOf(suite.vault, aliceKey);
      const bob = clientOf(suite.vault, bobKey);
      await expectVaultError(alice.addFolder({ folder: { title: 'Public by user' } }), 'forbidden', 403);
      await expectVaultError(
        bob.addFolder({ folder: { title: String(aliceId), personal: true } }),
        'forbidden',
        403,
      );
      await expectVaultError(
        alice.addFolder({ folder: { title: 'not-an-id', personal: true } }),
        'invalid_request',
        400,
      );
      const personal = await alice.addFolder({ folder: { title: String(aliceId), personal: true } });
      const { id } = await alice.addItem({
        item: { label: 'alice secret', password: pw('pw-alice-personal'), folderId: personal.id },
      });
      const folders = await alice.readUserFolders({ login: 'p-alice' });
      expect(folders).toEqual([
        expect.objectContaining({ id: personal.id, personal: true, accessType: 'W' }),
      ]);
      expect((await alice.readUserItems({ login: 'p-alice' })).map((i) => i.password)).toEqual([
        'pw-alice-personal',
      ]);
      expect(await bob.readItems({ ids: [id] })).toEqual([]);
      expect(await bob.readUserFolders({ login: 'p-bob' })).toEqual([]);
      await expectVaultError(bob.deleteFolders({ ids: [personal.id] }), 'not_found', 404);
      await suite.vault.admin.createRole({ name: 'p-sneaky' });
      await expect(suite.vault.admin.grant('p-sneaky', personal.id, 'R')).rejects.toThrow(/personal folder/);
      await expectVaultError(
        alice.updateFolder({
          id: personal.id,
          folder: { title: 'renamed', complexityLevel: 0, renewalPeriod: 0 },
        }),
        'invalid_request',
        400,
      );
      expect((await suite.admin.readItems({ ids: [id] })).length).toBe(1);
    });

    it('refuses a revoked key', async () => {
      const key = await suite.vault.admin.createKey({ label: 'p-temp', login: 'p-bob' });
      secrets.push(key);
      await clientOf(suite.vault, key).readUserFolders({ login: 'p-bob' });
      await suite.vault.admin.revokeKey('p-temp');
      await expectVaultError(
        clientOf(suite.vault, key).readUserFolders({ login: 'p-bob' }),
        'unauthorized',
        401,
      );
    });
  });
});
