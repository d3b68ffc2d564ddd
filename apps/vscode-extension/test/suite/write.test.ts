import * as assert from 'node:assert/strict';
import { generatePassword, meetsComplexity } from '@vaultline/protocol';
import * as vscode from 'vscode';
import { COMMANDS } from '../../src/constants.ts';
import type { Fixture } from './fixture.ts';
import {
  connect,
  connectionNode,
  errorsSince,
  extensionApi,
  folderNode,
  folderPaths,
  itemNode,
  itemNodes,
} from './helpers.ts';
import { type Target, vaultTarget } from './target.ts';

export function writeTests(target: Target): void {
  const fixture = target;
  const reader = () => target.client();
  const { alice, bob } = target;

  describe(`writing items and folders on ${target.title}`, () => {
    it('adds an item with a generated password that meets the folder level, edits one field, deletes it', async () => {
      const api = await extensionApi();
      const folder = await folderNode(api, alice, 'Infrastructure');
      const id = await vscode.commands.executeCommand<number>(COMMANDS.addItem, folder, {
        label: 'queue-broker ✓',
        login: 'rabbit',
        password: generatePassword({ complexityLevel: folder.folder.complexityLevel ?? 90 }),
        url: 'amqp://mq.internal',
        email: '',
        description: '',
      });
      assert.ok(Number.isInteger(id) && id > 0, `new id ${id}`);
      const added = await itemNode(api, alice, 'Infrastructure', 'queue-broker ✓');
      assert.equal(added.item.login, 'rabbit');
      const before = await reader().items.get(id);
      assert.ok(meetsComplexity(before.password, folder.folder.complexityLevel));

      assert.equal(
        await vscode.commands.executeCommand(COMMANDS.editItem, added, {
          field: 'login',
          value: 'rabbit-admin',
        }),
        true,
      );
      const after = await reader().items.get(id);
      assert.equal(after.login, 'rabbit-admin');
      assert.equal(after.password, before.password, 'the password is kept');
      assert.equal(after.url, before.url, 'the URL is kept');
      assert.equal(after.label, before.label, 'the label is kept');

      const edited = await itemNode(api, alice, 'Infrastructure', 'queue-broker ✓');
      assert.equal(
        await vscode.commands.executeCommand(COMMANDS.deleteItem, edited, { confirmed: true }),
        true,
      );
      const left = await itemNodes(api, await folderNode(api, alice, 'Infrastructure'));
      assert.equal(
        left.some((node) => node.item.id === id),
        false,
      );
    });

    it('shows a duplicate label plainly and adds nothing', async () => {
      const api = await extensionApi();
      const folder = await folderNode(api, alice, 'Infrastructure');
      const before = api.notifier.notices.length;
      const id = await vscode.commands.executeCommand(COMMANDS.addItem, folder, {
        label: fixture.items.web.label.toUpperCase(),
        login: 'x',
        password: 'Aa1!aaaaaaaaaaaaaaaaaaaaaaaaaa',
        url: '',
        email: '',
        description: '',
      });
      assert.equal(id, undefined);
      assert.match(errorsSince(api, before)[0] ?? '', /similar label already exists/);
    });

    it('refuses writes where the login has no right, before asking the vault', async () => {
      const api = await extensionApi();
      const bobFolder = await folderNode(api, bob, 'Infrastructure');
      const before = api.notifier.notices.length;
      const id = await vscode.commands.executeCommand(COMMANDS.addItem, bobFolder, {
        label: 'bob-was-here',
        login: 'b',
        password: 'Aa1!aaaaaaaaaaaaaaaaaaaaaaaaaa',
        url: '',
        email: '',
        description: '',
      });
      assert.equal(id, undefined);
      assert.match(errorsSince(api, before)[0] ?? '', /no right to add items to folder "Infrastructure"/);
      const web = await itemNode(api, bob, 'Infrastructure', fixture.items.web.label);
      assert.equal(
        await vscode.commands.executeCommand(COMMANDS.deleteItem, web, { confirmed: true }),
        undefined,
      );
      assert.match(errorsSince(api, before)[1] ?? '', /bob has no right to delete this item/);
      assert.equal((await reader().items.get(fixture.items.web.id)).label, fixture.items.web.label);
    });

    it('refuses a password that is too weak for the folder', async () => {
      const api = await extensionApi();
      const folder = await folderNode(api, alice, 'Infrastructure');
      const before = api.notifier.notices.length;
      const id = await vscode.commands.executeCommand(COMMANDS.addItem, folder, {
        label: 'weak-one',
        login: 'w',
        password: 'abc',
        url: '',
        email: '',
        description: '',
      });
      assert.equal(id, undefined);
      assert.match(errorsSince(api, before)[0] ?? '', /too weak/);
    });
  });
}

/**
 * What only the vault server's keys show: values carried in the URL (a length limit), a key bound
 * to a user that may not create public folders, and a shared admin key acting for a login.
 */
export function vaultKeyWriteTests(fixture: Fixture): void {
  const target = vaultTarget(fixture);
  const { alice, bob } = target;
  const sharedKey = fixture.keys.admin;

  describe("writing with the vault server's keys", () => {
    it('reports an oversized item plainly and adds nothing', async () => {
      const api = await extensionApi();
      const folder = await folderNode(api, alice, 'Infrastructure');
      const before = api.notifier.notices.length;
      const id = await vscode.commands.executeCommand(COMMANDS.addItem, folder, {
        label: 'huge',
        login: 'h',
        password: generatePassword({ complexityLevel: 90 }),
        url: 'https://example.com/'.padEnd(20_000, 'x'),
        email: '',
        description: '',
      });
      assert.equal(id, undefined);
      assert.match(
        errorsSince(api, before)[0] ?? '',
        /^Add item: (add\/item: the request URL would be \d+ bytes, above the limit of \d+|the request or answer is too large)/,
      );
      const labels = (await itemNodes(api, await folderNode(api, alice, 'Infrastructure'))).map(
        (n) => n.item.label,
      );
      assert.equal(labels.includes('huge'), false);
    });

    it("shows the server's own refusal plainly: a user-bound key may not create public folders", async () => {
      const api = await extensionApi();
      const before = api.notifier.notices.length;
      const id = await vscode.commands.executeCommand(COMMANDS.addFolder, await connectionNode(api, alice), {
        title: 'Alice top level',
        complexityLevel: 0,
      });
      assert.equal(id, undefined);
      const [message] = errorsSince(api, before);
      assert.match(
        message ?? '',
        /^Add folder: you have no right to do this in the vault\. The vault said: ".*admin key.*\."$/,
      );
      assert.equal((message ?? '').includes(fixture.keys.alice), false);
    });

    it('adds, renames and deletes a folder through a shared admin key acting for alice', async () => {
      const api = await extensionApi();
      // Only an admin key may create public folders on this server, as on TeamPass: the connection
      // uses the team's shared key and the view still acts for (and checks the rights of) alice.
      const notices = api.notifier.notices.length;
      assert.equal(
        await connect({ name: 'team', url: target.url, login: 'alice', apiKey: sharedKey }),
        true,
        JSON.stringify(api.notifier.notices.slice(notices)),
      );
      const teamFolders = await folderPaths(api, 'team');
      assert.deepEqual([...teamFolders.keys()].sort(), [
        'Infrastructure',
        'Infrastructure / Databases',
        'Payments',
      ]);
      const sub = await vscode.commands.executeCommand<number>(
        COMMANDS.addFolder,
        teamFolders.get('Infrastructure'),
        {
          title: 'Queues',
          complexityLevel: 60,
        },
      );
      assert.ok(Number.isInteger(sub) && sub > 0, `new subfolder id ${sub}`);
      const root = await connectionNode(api, 'team');
      const id = await vscode.commands.executeCommand<number>(COMMANDS.addFolder, root, {
        title: 'Scratch folder',
        complexityLevel: 25,
      });
      assert.ok(Number.isInteger(id) && id > 0, `new folder id ${id}`);
      const node = {
        kind: 'folder' as const,
        connection: 'team',
        folder: {
          id,
          title: 'Scratch folder',
          accessType: 'W' as const,
          parentId: undefined,
          level: 1,
          complexityLevel: 25,
        },
        parent: root,
        subfolders: [],
      };
      assert.equal(
        await vscode.commands.executeCommand(COMMANDS.editFolder, node, {
          title: 'Scratch renamed',
          complexityLevel: 25,
        }),
        true,
      );
      assert.equal(
        await vscode.commands.executeCommand(COMMANDS.deleteFolder, node, { confirmed: true }),
        true,
      );
      const before = api.notifier.notices.length;
      assert.equal(
        await vscode.commands.executeCommand(COMMANDS.editFolder, node, {
          title: 'Gone',
          complexityLevel: 25,
        }),
        undefined,
      );
      assert.match(errorsSince(api, before)[0] ?? '', /Edit folder: not found in the vault/);
      const bobInfra = await folderNode(api, bob, 'Infrastructure');
      const refused = api.notifier.notices.length;
      assert.equal(
        await vscode.commands.executeCommand(COMMANDS.addFolder, bobInfra, {
          title: 'x',
          complexityLevel: 0,
        }),
        undefined,
      );
      assert.match(errorsSince(api, refused)[0] ?? '', /no right to add folders to folder "Infrastructure"/);
      await vscode.commands.executeCommand(
        COMMANDS.deleteFolder,
        { ...node, folder: { ...node.folder, id: sub } },
        { confirmed: true },
      );
      await vscode.commands.executeCommand(COMMANDS.disconnect, root, { confirmed: true });
    });
  });
}
