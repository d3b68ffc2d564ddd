import * as assert from 'node:assert/strict';
import { createVaultClient } from '@vaultline/protocol';
import { parse as parseDotenv } from 'dotenv';
import * as vscode from 'vscode';
import { COMMANDS } from '../../src/constants.ts';
import { generatePassword } from '../../src/password-generator.ts';
import { detectSecrets } from '../../src/secrets/detect-secrets.ts';
import { folderPicks, type StoredSecret } from '../../src/secrets/store-secret.ts';
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

  describe('a .env value with an unquoted #', () => {
    const created: number[] = [];
    after(async () => {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      if (created.length > 0)
        await createVaultClient({ baseUrl: fixture.url, apiKey: fixture.keys.alice }).deleteItems({
          ids: created,
        });
    });

    it('is stored as dotenv reads it, and the file still reads the same value through its reference', async () => {
      const api = await extensionApi();
      const text = 'DB_HOST=db.internal\nDB_PASSWORD=Hunter7!Quokka#Blue\n';
      const read = parseDotenv(text).DB_PASSWORD;
      assert.equal(read, 'Hunter7!Quokka', 'what dotenv itself reads');
      const [finding] = detectSecrets(text, { languageId: 'dotenv' });
      assert.equal(finding?.secret, read);

      const document = await vscode.languages.setTextDocumentLanguage(
        await vscode.workspace.openTextDocument({ content: text }),
        'dotenv',
      );
      await vscode.window.showTextDocument(document);
      const diagnostic = await waitFor(
        () =>
          vscode.languages.getDiagnostics(document.uri).find((entry) => entry.code === 'password-assignment'),
        'the secret warning',
      );
      assert.equal(document.getText(diagnostic.range), read);
      const stored = await vscode.commands.executeCommand<StoredSecret>(
        COMMANDS.storeSecret,
        document.uri,
        diagnostic.range,
        { connection: 'alice', folderId: fixture.folders.infra, label: 'dotenv hash', localHistory: 'keep' },
      );
      assert.ok(stored, errorsSince(api, 0).slice(-1).join(''));
      created.push(stored.itemId);
      const vault = createVaultClient({ baseUrl: fixture.url, apiKey: fixture.keys.alice });
      assert.equal((await vault.getItem(stored.itemId)).password, read);
      // dotenv reads the reference from the file now, and the reference resolves to what it read before.
      const after = parseDotenv(document.getText());
      assert.equal(after.DB_PASSWORD, stored.reference);
      assert.equal(after.DB_HOST, 'db.internal');
      const copied = await vscode.commands.executeCommand<{ cleared: Promise<boolean> }>(
        COMMANDS.copyReferencedValue,
        after.DB_PASSWORD,
        1,
      );
      assert.equal(await vscode.env.clipboard.readText(), read);
      await copied.cleared;
      assert.equal(document.getText(), `DB_HOST=db.internal\nDB_PASSWORD=${stored.reference} #Blue\n`);
    });
  });

  describe('the terminal with vault values, from a .env', () => {
    it("sets the file's plain variables too, not only those with references", async () => {
      const { db } = fixture.items;
      const document = await vscode.languages.setTextDocumentLanguage(
        await vscode.workspace.openTextDocument({
          content: `# app settings\nPORT=8080\nDB_PASS=vaultline://${db.id}/password\nGREETING="hello world" # quoted\n`,
        }),
        'dotenv',
      );
      await vscode.window.showTextDocument(document);
      const terminal = await vscode.commands.executeCommand<vscode.Terminal>(COMMANDS.runWithValues);
      try {
        assert.ok(terminal);
        assert.deepEqual((terminal.creationOptions as vscode.TerminalOptions).env, {
          PORT: '8080',
          DB_PASS: db.password,
          GREETING: 'hello world',
        });
      } finally {
        terminal?.dispose();
        await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      }
    });
  });
}
