import * as assert from 'node:assert/strict';
import { meetsComplexity } from '@vaultline/protocol';
import * as vscode from 'vscode';
import { searchActions } from '../../src/commands/search.ts';
import { COMMANDS, ITEM_FIELDS } from '../../src/constants.ts';
import {
  connect,
  disconnect,
  errorsSince,
  extensionApi,
  folderNode,
  folderPaths,
  itemNode,
  setConfig,
  waitFor,
} from './helpers.ts';
import type { Target } from './target.ts';

async function editorWithTwoCursors(): Promise<vscode.TextEditor> {
  const document = await vscode.workspace.openTextDocument({ content: 'first=\nsecond=\n' });
  const editor = await vscode.window.showTextDocument(document);
  editor.selections = [new vscode.Selection(0, 6, 0, 6), new vscode.Selection(1, 7, 1, 7)];
  return editor;
}

export function insertCopyTests(target: Target): void {
  const fixture = target;
  const { alice, bob } = target;
  describe(`insert at cursor on ${target.title}`, () => {
    afterEach(async () => {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    });

    for (const field of ITEM_FIELDS) {
      it(`inserts the ${field} at both cursors`, async () => {
        const api = await extensionApi();
        const node = await itemNode(api, alice, 'Infrastructure / Databases', fixture.items.db.label);
        const editor = await editorWithTwoCursors();
        const count = await vscode.commands.executeCommand(COMMANDS.insertField, node, field);
        assert.equal(count, 2);
        const value = fixture.items.db[field];
        assert.equal(editor.document.getText(), `first=${value}\nsecond=${value}\n`);
      });
    }

    it('replaces selected text and takes an item reference from search', async () => {
      const editor = await editorWithTwoCursors();
      editor.selections = [new vscode.Selection(0, 0, 0, 5)];
      const ref = { connection: alice, itemId: fixture.items.web.id, folderId: fixture.items.web.folderId };
      await vscode.commands.executeCommand(COMMANDS.insertLogin, ref);
      assert.equal(editor.document.getText(), `${fixture.items.web.login}=\nsecond=\n`);
    });

    it('refuses an item the login may not read, and says so', async () => {
      const api = await extensionApi();
      const editor = await editorWithTwoCursors();
      const before = api.notifier.notices.length;
      const ref = { connection: bob, itemId: fixture.items.db.id };
      const count = await vscode.commands.executeCommand(COMMANDS.insertField, ref, 'password');
      assert.equal(count, undefined);
      assert.equal(editor.document.getText(), 'first=\nsecond=\n');
      const [message] = errorsSince(api, before);
      assert.ok(message, 'an error message was shown');
      assert.match(message, /^Insert: (bob has no access to this item|not found in the vault)/);
      assert.equal(message.includes(fixture.items.db.password), false);
    });

    const { sharedKey } = target;
    if (sharedKey)
      it("applies the login's rights on a shared key that could read everything (TeamPass)", async () => {
        const api = await extensionApi();
        assert.equal(
          await connect({ name: 'shared', url: target.url, login: 'bob', apiKey: sharedKey }),
          true,
        );
        try {
          assert.deepEqual([...(await folderPaths(api, 'shared')).keys()], ['Infrastructure']);
          const editor = await editorWithTwoCursors();
          const before = api.notifier.notices.length;
          const ref = { connection: 'shared', itemId: fixture.items.db.id };
          assert.equal(
            await vscode.commands.executeCommand(COMMANDS.insertField, ref, 'password'),
            undefined,
          );
          assert.equal(errorsSince(api, before)[0], 'Insert: bob has no access to this item.');
          assert.equal(editor.document.getText(), 'first=\nsecond=\n');
          const web = { connection: 'shared', itemId: fixture.items.web.id };
          assert.equal(await vscode.commands.executeCommand(COMMANDS.insertField, web, 'password'), 2);
          assert.equal(
            editor.document.getText(),
            `first=${fixture.items.web.password}\nsecond=${fixture.items.web.password}\n`,
          );
        } finally {
          await disconnect('shared');
        }
      });

    it('refuses to insert any value in presentation mode, the login too (issue #31.6)', async () => {
      const api = await extensionApi();
      const node = await itemNode(api, alice, 'Infrastructure / Databases', fixture.items.db.label);
      await vscode.commands.executeCommand(COMMANDS.togglePresentationMode, true);
      try {
        const editor = await editorWithTwoCursors();
        const before = api.notifier.notices.length;
        assert.equal(await vscode.commands.executeCommand(COMMANDS.insertPassword, node), undefined);
        assert.match(errorsSince(api, before)[0] ?? '', /disabled in presentation mode/);
        assert.equal(api.tree.getTreeItem(node).description, '••••••');
        assert.equal(api.tree.itemTooltip(node).includes(fixture.items.db.url), false);
        if (target.attachment) {
          const [file] = await api.tree.getChildren(node);
          assert.equal(await vscode.commands.executeCommand(COMMANDS.openAttachment, file), undefined);
          assert.match(
            errorsSince(api, before)[1] ?? '',
            /Opening an attachment is disabled in presentation mode/,
          );
        }
        const { hits } = await api.search.find(fixture.items.db.label);
        assert.equal(
          api.search.format(hits[0]!),
          `${fixture.items.db.label} — Infrastructure / Databases — ••••••`,
        );
        // The login is masked in the view and in search: it is not put into an editor either.
        const refused = api.notifier.notices.length;
        assert.equal(await vscode.commands.executeCommand(COMMANDS.insertLogin, node), undefined);
        assert.equal(
          errorsSince(api, refused)[0],
          'Insert login: Inserting a value is disabled in presentation mode. Insert a reference instead.',
        );
        assert.equal(editor.document.getText(), 'first=\nsecond=\n');
        assert.deepEqual(
          searchActions({ connection: alice, itemId: fixture.items.db.id }, true).filter(
            (action) => action.command === COMMANDS.insertField,
          ),
          [],
        );
      } finally {
        await vscode.commands.executeCommand(COMMANDS.togglePresentationMode, false);
      }
      assert.equal(api.tree.getTreeItem(node).description, fixture.items.db.login);
    });
  });

  describe(`copy with auto-clear on ${target.title}`, () => {
    after(() => setConfig('clipboardClearSeconds', undefined));

    it('copies the password and clears the clipboard after the delay', async () => {
      const api = await extensionApi();
      const node = await itemNode(api, alice, 'Infrastructure', fixture.items.web.label);
      await setConfig('clipboardClearSeconds', 1);
      const started = Date.now();
      const result = await vscode.commands.executeCommand<{ cleared: Promise<boolean> }>(
        COMMANDS.copyPassword,
        node,
      );
      assert.equal(await vscode.env.clipboard.readText(), fixture.items.web.password);
      assert.equal(await result.cleared, true);
      assert.ok(Date.now() - started >= 900, 'not cleared before the delay');
      assert.equal(await vscode.env.clipboard.readText(), '');
    });

    it('in a desktop window leaves the clipboard alone once it holds something else; in a browser clears it unread', async () => {
      const api = await extensionApi();
      const node = await itemNode(api, alice, 'Infrastructure', fixture.items.web.label);
      const result = await vscode.commands.executeCommand<{ cleared: Promise<boolean> }>(
        COMMANDS.copyField,
        node,
        'login',
        0.5,
      );
      assert.equal(await vscode.env.clipboard.readText(), fixture.items.web.login);
      await vscode.env.clipboard.writeText('something the user copied');
      // A browser may hold a read until the user answers a prompt: there the clear only writes.
      const desktop = vscode.env.uiKind === vscode.UIKind.Desktop;
      assert.equal(await result.cleared, !desktop);
      assert.equal(await vscode.env.clipboard.readText(), desktop ? 'something the user copied' : '');
    });

    it('falls back to the configured delay when a caller passes a bad one', async () => {
      const api = await extensionApi();
      const node = await itemNode(api, alice, 'Infrastructure', fixture.items.web.label);
      await setConfig('clipboardClearSeconds', 1);
      for (const bad of ['never', -5, Number.NaN, Number.POSITIVE_INFINITY]) {
        const result = await vscode.commands.executeCommand<{ cleared: Promise<boolean> }>(
          COMMANDS.copyField,
          node,
          'password',
          bad,
        );
        assert.equal(await result.cleared, true, `cleared despite ${String(bad)}`);
        assert.equal(await vscode.env.clipboard.readText(), '');
      }
    });

    it('generates a password for the folder level, copies it and clears it', async () => {
      const api = await extensionApi();
      const folder = await folderNode(api, alice, 'Infrastructure / Databases');
      await setConfig('clipboardClearSeconds', 1);
      const result = await vscode.commands.executeCommand<{ cleared: Promise<boolean> }>(
        COMMANDS.generatePassword,
        folder,
      );
      const generated = await vscode.env.clipboard.readText();
      assert.ok(meetsComplexity(generated, folder.folder.complexityLevel), 'meets the folder level');
      assert.ok(
        generated.length >= 16 && /[a-z]/.test(generated) && /[A-Z]/.test(generated) && /\d/.test(generated),
      );
      assert.equal(await result.cleared, true);
      assert.equal(await vscode.env.clipboard.readText(), '');
    });

    it('counts down in the status bar while a value is on the clipboard', async () => {
      const api = await extensionApi();
      const node = await itemNode(api, alice, 'Infrastructure', fixture.items.web.label);
      const result = await vscode.commands.executeCommand<{ cleared: Promise<boolean> }>(
        COMMANDS.copyField,
        node,
        'url',
        2,
      );
      const status = await waitFor(
        () => api.clipboard.statusText.match(/URL clears in (\d)s/) ?? undefined,
        'a countdown',
      );
      assert.ok(Number(status[1]) <= 2);
      assert.equal(await result.cleared, true);
      assert.equal(api.clipboard.statusText, '');
    });
  });
}
