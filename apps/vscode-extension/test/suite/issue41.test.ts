import * as assert from 'node:assert/strict';
import { createVaultClient } from '@vaultline/protocol';
import * as vscode from 'vscode';
import { COMMANDS } from '../../src/constants.ts';
import type { StoredSecret } from '../../src/secrets/store-secret.ts';
import type { Fixture } from './fixture.ts';
import {
  accept,
  acceptUntil,
  dotenvWithSecret,
  errorsSince,
  extensionApi,
  folderNode,
  waitFor,
} from './helpers.ts';

/** Issue #41, VS Code: Add Item's password step and a Store whose label is taken. */
export function issue41Tests(fixture: Fixture): void {
  const vault = () => createVaultClient({ baseUrl: fixture.url, auth: fixture.keys.alice });
  const created: number[] = [];

  describe('issue #41: Add Item and Store', () => {
    after(async () => {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const admin = createVaultClient({ baseUrl: fixture.url, auth: fixture.keys.admin });
      if (created.length > 0) await admin.items.delete(created.splice(0));
    });

    it('asks for the password in a box that hides it; Enter stores what was typed, or generates one when empty', async () => {
      const api = await extensionApi();
      const folder = await folderNode(api, 'alice', 'Infrastructure');
      const add = (label: string) =>
        vscode.commands.executeCommand<number | undefined>(COMMANDS.addItem, folder, {
          label,
          login: '',
          url: '',
          email: '',
          description: '',
        });
      const typed = add('typed password');
      const box = await waitFor(() => api.writer.passwordBox, 'the password box');
      assert.equal(box.password, true, 'what is typed is hidden');
      assert.equal(box.title, 'Add Item (3/6)');
      box.value = 'Typed-Pw-2026!xQ';
      await accept();
      const typedId = await typed;
      assert.ok(typedId, errorsSince(api, 0).slice(-1).join(''));
      created.push(typedId);
      assert.equal((await vault().items.get(typedId)).password, 'Typed-Pw-2026!xQ');

      const generated = add('generated password');
      await waitFor(() => api.writer.passwordBox, 'the password box');
      await accept();
      const generatedId = await generated;
      assert.ok(generatedId, errorsSince(api, 0).slice(-1).join(''));
      created.push(generatedId);
      assert.ok((await vault().items.get(generatedId)).password.length >= 16, 'a strong password generated');
    });

    it('asks again with a free label when the proposed one is taken, instead of failing', async () => {
      const api = await extensionApi();
      // The label Store proposes for API_PASSWORD, taken in a folder alice may only read.
      const admin = createVaultClient({ baseUrl: fixture.url, auth: fixture.keys.admin });
      const { id: taken } = await admin.items.create({
        label: 'api password',
        password: 'Taken-Pw-2026!x',
        folderId: fixture.folders.payments,
      });
      created.push(taken);
      const before = api.notifier.notices.length;
      const { document, range } = await dotenvWithSecret('API_PASSWORD=Zx9$kLm2vQ8pR4!y\n');
      const stored = await acceptUntil(
        vscode.commands.executeCommand<StoredSecret | undefined>(COMMANDS.storeSecret, document.uri, range, {
          connection: 'alice',
          folderId: fixture.folders.infra,
          localHistory: 'keep',
        }),
      );
      assert.ok(stored, `nothing stored: ${errorsSince(api, before).join('; ')}`);
      created.push(stored.itemId);
      assert.equal((await vault().items.get(stored.itemId)).label, 'api password 2');
      assert.equal(document.getText(), `API_PASSWORD=${stored.reference}\n`);
      assert.deepEqual(errorsSince(api, before), []);
    });
  });
}
