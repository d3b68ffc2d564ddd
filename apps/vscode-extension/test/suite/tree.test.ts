import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS } from '../../src/constants.ts';
import type { VaultNode } from '../../src/tree-nodes.ts';
import {
  connectionNode,
  extensionApi,
  folderNode,
  folderPaths,
  itemNode,
  itemNodes,
  setConfig,
  waitFor,
} from './helpers.ts';
import type { Target } from './target.ts';

export function treeTests(target: Target): void {
  const fixture = target;
  const { alice, bob } = target;
  describe(`the vault tree on ${target.title}`, () => {
    it('shows each connection as a root with its login as description', async () => {
      const api = await extensionApi();
      const roots = await api.tree.getChildren();
      assert.deepEqual(
        roots.map((node) => (node.kind === 'connection' ? node.connection : node.kind)),
        [alice, bob],
      );
      const root = api.tree.getTreeItem(await connectionNode(api, alice));
      assert.equal(root.description, 'alice');
    });

    it("nests alice's folders as the vault does and shows her rights", async () => {
      const api = await extensionApi();
      const folders = await folderPaths(api, alice);
      assert.deepEqual([...folders.keys()].sort(), [
        'Infrastructure',
        'Infrastructure / Databases',
        'Payments',
      ]);
      assert.equal(folders.get('Infrastructure')?.folder.accessType, 'W');
      assert.equal(folders.get('Payments')?.folder.accessType, 'R');
      const infra = api.tree.getTreeItem(folders.get('Infrastructure')!);
      assert.equal(infra.contextValue, 'folder add edit delete');
      assert.equal(infra.description, 'full access');
      assert.match(String(infra.tooltip), /Your right: full access \(W\)/);
      const payments = api.tree.getTreeItem(folders.get('Payments')!);
      assert.equal(payments.contextValue, 'folder');
      assert.equal(payments.description, 'read only');
      assert.match(String(payments.tooltip), /Your right: read only \(R\)/);
    });

    it('shows bob only the folder he was granted, read-only', async () => {
      const api = await extensionApi();
      const folders = await folderPaths(api, bob);
      assert.deepEqual([...folders.keys()], ['Infrastructure']);
      assert.equal(folders.get('Infrastructure')?.folder.accessType, 'R');
    });

    it('loads the items of a folder when it opens, for each user', async () => {
      const api = await extensionApi();
      const aliceInfra = await itemNodes(api, await folderNode(api, alice, 'Infrastructure'));
      const bobInfra = await itemNodes(api, await folderNode(api, bob, 'Infrastructure'));
      const labels = [fixture.items.ci.label, fixture.items.web.label].sort();
      assert.deepEqual(aliceInfra.map((node) => node.item.label).sort(), labels);
      assert.deepEqual(bobInfra.map((node) => node.item.label).sort(), labels);
      const db = await itemNodes(api, await folderNode(api, alice, 'Infrastructure / Databases'));
      assert.deepEqual(
        db.map((node) => node.item.label),
        [fixture.items.db.label],
      );
      const payments = await itemNodes(api, await folderNode(api, alice, 'Payments'));
      assert.deepEqual(
        payments.map((node) => node.item.label),
        [fixture.items.stripe.label],
      );
    });

    it('keeps no password in tree nodes and shows path and URL but no password in the tooltip', async () => {
      const api = await extensionApi();
      const node = await itemNode(api, alice, 'Infrastructure / Databases', fixture.items.db.label);
      assert.equal(JSON.stringify(node.item).includes(fixture.items.db.password), false);
      assert.equal('password' in node.item, false);
      const treeItem = api.tree.getTreeItem(node);
      assert.equal(treeItem.description, fixture.items.db.login);
      const tooltip = String(api.tree.resolveTreeItem(treeItem, node).tooltip);
      assert.match(tooltip, /Infrastructure \/ Databases/);
      assert.ok(tooltip.includes(fixture.items.db.url));
      assert.equal(tooltip.includes(fixture.items.db.password), false);
      assert.equal((treeItem.iconPath as vscode.ThemeIcon).id, 'key');
    });

    it('gives every node its parent, so an item can be revealed', async () => {
      const api = await extensionApi();
      // reveal() settles before the workbench's selection reaches the extension host, and a
      // refresh landing meanwhile (a connection saved, a setting changed) replaces every node:
      // wait for the item to be selected, and reveal the new node when the tree was redrawn.
      let selected: VaultNode | undefined;
      for (let attempt = 1; attempt <= 3 && !selected; attempt++) {
        const node = await itemNode(api, alice, 'Infrastructure / Databases', fixture.items.db.label);
        const folder = api.tree.getParent(node);
        assert.equal(folder?.kind, 'folder');
        const top = folder && api.tree.getParent(folder);
        assert.equal(top?.kind === 'folder' && top.folder.title, 'Infrastructure');
        const root = top && api.tree.getParent(top);
        assert.equal(root?.kind, 'connection');
        await api.treeView.reveal(node, { select: true, focus: false });
        selected = await waitFor(
          () =>
            api.treeView.selection.find(
              (chosen) =>
                chosen.kind === 'item' &&
                chosen.connection === node.connection &&
                chosen.item.id === node.item.id,
            ),
          'the revealed item selected',
        ).catch(() => undefined);
      }
      assert.ok(selected, 'the revealed item is selected');
    });

    it('shows a page of a large folder and the rest on request', async () => {
      const api = await extensionApi();
      await setConfig('treePageSize', 1);
      try {
        api.tree.refresh();
        const folder = await folderNode(api, alice, 'Infrastructure');
        const page = await api.tree.getChildren(folder);
        const labels = (nodes: VaultNode[]) =>
          nodes.map((n) =>
            n.kind === 'folder'
              ? n.folder.title
              : n.kind === 'item'
                ? n.item.label
                : n.kind === 'message'
                  ? n.text
                  : n.kind,
          );
        assert.deepEqual(labels(page), ['Databases', fixture.items.ci.label, 'Show the other 1 item']);
        assert.equal(api.tree.getTreeItem(page[2]!).command?.command, COMMANDS.showAllItems);
        await vscode.commands.executeCommand(COMMANDS.showAllItems, page[2]);
        assert.deepEqual(labels(await api.tree.getChildren(folder)), [
          'Databases',
          fixture.items.ci.label,
          fixture.items.web.label,
        ]);
        // Revealing an item past the page (from search) shows the whole folder first.
        api.tree.refresh(folder);
        assert.equal((await api.tree.getChildren(folder)).length, 3);
        const web = await api.tree.findItem(alice, fixture.folders.infra, fixture.items.web.id);
        assert.equal(web?.item.label, fixture.items.web.label);
        assert.ok((await api.tree.getChildren(folder)).includes(web!));
      } finally {
        await setConfig('treePageSize', undefined);
        api.tree.refresh();
      }
    });

    const attachment = target.attachment;
    if (attachment)
      it('lists attachments under their item', async () => {
        const api = await extensionApi();
        const node = await itemNode(api, alice, 'Infrastructure / Databases', fixture.items.db.label);
        const files = await api.tree.getChildren(node);
        assert.deepEqual(
          files.map((f) => (f.kind === 'file' ? f.file.name : f.kind)),
          [attachment.name],
        );
      });
  });
}
