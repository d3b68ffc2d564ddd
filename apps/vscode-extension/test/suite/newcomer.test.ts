import * as assert from 'node:assert/strict';
import { createVaultClient } from '@vaultline/protocol';
import * as vscode from 'vscode';
import { COMMANDS } from '../../src/constants.ts';
import { generatePassword } from '../../src/password-generator.ts';
import { folderPicks } from '../../src/secrets/store-secret.ts';
import type { Fixture } from './fixture.ts';
import { errorsSince, extensionApi, folderNode, itemNode, waitFor } from './helpers.ts';

function hoverText(hovers: vscode.Hover[]): string {
  return hovers
    .flatMap((hover) => hover.contents)
    .map((content) => (typeof content === 'string' ? content : content.value))
    .join('\n')
    .replace(/&nbsp;/g, ' ');
}

/** Issue #23.7: what a newcomer saw that the tester reported, each case failing before its fix. */
export function newcomerTests(fixture: Fixture): void {
  describe('the personal folder is "Personal" everywhere, never its owner\'s user id', () => {
    const admin = () => createVaultClient({ baseUrl: fixture.url, apiKey: fixture.keys.admin });
    const userId = String(fixture.users.alice);
    let personalId = 0;
    let itemId = 0;

    before(async () => {
      const api = await extensionApi();
      personalId = (
        await admin().addFolder({ folder: { title: userId, complexityLevel: 0, personal: true } })
      ).id;
      itemId = (
        await admin().addItem({
          item: { label: 'personal-note', login: 'me', password: 'N0te!pass-word', folderId: personalId },
        })
      ).id;
      api.tree.refresh();
    });

    after(async () => {
      await admin().deleteItems({ ids: [itemId] });
      await admin().deleteFolders({ ids: [personalId] });
      (await extensionApi()).tree.refresh();
    });

    it('in search results', async () => {
      const api = await extensionApi();
      const outcome = await api.search.find('personal-note');
      const hit = outcome.hits.find((entry) => entry.connection === 'alice');
      assert.ok(hit, JSON.stringify(outcome));
      assert.equal(api.search.format(hit), 'personal-note — Personal — me');
    });

    it('in the folder picker of "Store in Vaultline"', async () => {
      const api = await extensionApi();
      const root = api.tree.model.root('alice')!;
      const tree = await api.tree.model.loadFolders(root);
      assert.ok('byId' in tree);
      const labels = folderPicks([...tree.byId.values()]).map((pick) => pick.label);
      assert.ok(labels.includes('Personal'), labels.join(' | '));
      assert.ok(!labels.includes(userId), labels.join(' | '));
    });

    it('in what a write says', async () => {
      const api = await extensionApi();
      const personal = await folderNode(api, 'alice', 'Personal');
      const before = api.notifier.notices.length;
      const id = await vscode.commands.executeCommand<number>(COMMANDS.addItem, personal, {
        label: 'personal-added',
        login: '',
        password: generatePassword(90),
        url: '',
      });
      try {
        const said = api.notifier.notices.slice(before).map((notice) => notice.text);
        assert.deepEqual(said, ['Added an item to "Personal".']);
      } finally {
        if (id) await admin().deleteItems({ ids: [id] });
      }
    });

    it("in a reference's hover and the tree's tooltip", async () => {
      const api = await extensionApi();
      const document = await vscode.workspace.openTextDocument({
        language: 'properties',
        content: `NOTE=vaultline://${itemId}/login\n`,
      });
      await vscode.window.showTextDocument(document);
      try {
        const text = await waitFor(async () => {
          const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
            'vscode.executeHoverProvider',
            document.uri,
            new vscode.Position(0, 10),
          );
          return hoverText(hovers) || undefined;
        }, 'a hover');
        assert.match(text, /Folder: Personal ·/);
        const node = await api.tree.findItem('alice', personalId, itemId);
        assert.ok(node);
        assert.match(api.tree.itemTooltip(node), /^Path: Personal$/m);
      } finally {
        await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      }
    });
  });

  describe('a password too weak for a folder', () => {
    it('says the rule and what is missing, for a typed 19-character password of 4 kinds', async () => {
      const api = await extensionApi();
      const node = await itemNode(api, 'alice', 'Infrastructure', fixture.items.ci.label);
      const before = api.notifier.notices.length;
      const done = await vscode.commands.executeCommand(COMMANDS.editItem, node, {
        field: 'password',
        value: 'Tr0ub4dor&3-Horse!x',
      });
      assert.equal(done, undefined);
      const [error] = errorsSince(api, before);
      assert.equal(
        error,
        'Edit item: too weak for this folder. The vault does not say its rule, so Vaultline asks for the strongest, "Very heavy": 128 bits. This password has 124 bits (19 characters of 4 kinds). Add 1 more character, or use the generator.',
      );
    });
  });
}
