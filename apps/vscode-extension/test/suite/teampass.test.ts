import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS } from '../../src/constants.ts';
import type { MessageNode } from '../../src/tree-nodes.ts';
import type { Fixture } from './fixture.ts';
import { connect, disconnect, errorsSince, extensionApi, itemNode } from './helpers.ts';

/** What only a TeamPass server shows: a release without file endpoints (issue #9, defect 4). */
export function teampassOnlyTests(fixture: Fixture): void {
  describe('a TeamPass release without file endpoints', () => {
    before(async () => {
      await connect({
        name: 'tp-nofiles',
        url: fixture.teampass.noFilesUrl,
        login: 'alice',
        apiKey: fixture.teampass.key,
      });
    });
    after(() => disconnect('tp-nofiles'));

    it('shows "No attachments" instead of an empty branch, and no expand arrow once the server is known to have none', async () => {
      const api = await extensionApi();
      const item = await itemNode(api, 'tp-nofiles', 'Infrastructure', fixture.teampass.items.ci.label);
      const children = await api.tree.getChildren(item);
      assert.deepEqual(
        children.map((node) => (node.kind === 'message' ? node.text : node.kind)),
        ['No attachments'],
      );
      assert.equal((children[0] as MessageNode).severity, 'info');

      // An upload tells the client the server has no file endpoints ("No results" from add/file).
      const scratch = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, 'tp-upload.txt');
      await vscode.workspace.fs.writeFile(scratch, new TextEncoder().encode('notes'));
      try {
        const before = api.notifier.notices.length;
        assert.equal(
          await vscode.commands.executeCommand(COMMANDS.uploadAttachment, item, scratch),
          undefined,
        );
        assert.ok(errorsSince(api, before)[0], 'the failed upload is reported');
      } finally {
        await vscode.workspace.fs.delete(scratch);
      }
      api.tree.refresh();
      const again = await itemNode(api, 'tp-nofiles', 'Infrastructure', fixture.teampass.items.ci.label);
      assert.equal(api.tree.getTreeItem(again).collapsibleState, vscode.TreeItemCollapsibleState.None);
    });
  });
}
