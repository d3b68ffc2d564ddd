import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS } from '../../src/constants.ts';
import type { FileNode } from '../../src/tree-nodes.ts';
import { errorsSince, extensionApi, itemNode } from './helpers.ts';
import type { Target } from './target.ts';

export function attachmentTests(target: Target): void {
  const fixture = { ...target, attachment: target.attachment! };
  describe(`attachments on ${target.title}`, () => {
    const scratch = () => vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, '.vaultline-test');

    before(async () => {
      await vscode.workspace.fs.createDirectory(scratch());
    });
    after(async () => {
      await vscode.workspace.fs.delete(scratch(), { recursive: true, useTrash: false });
    });

    it('opens a text attachment read-only in an editor', async () => {
      const api = await extensionApi();
      const item = await itemNode(api, target.alice, 'Infrastructure / Databases', fixture.items.db.label);
      const [file] = (await api.tree.getChildren(item)) as FileNode[];
      const editor = await vscode.commands.executeCommand<vscode.TextEditor>(COMMANDS.openAttachment, file);
      assert.equal(editor.document.getText(), fixture.attachment.text);
      assert.equal(editor.document.uri.scheme, 'vaultline-attachment');
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    });

    it('uploads a file to an item, lists it, saves it back byte for byte', async () => {
      const api = await extensionApi();
      const item = await itemNode(api, target.alice, 'Infrastructure', fixture.items.ci.label);
      const bytes = new Uint8Array(3000).map((_, i) => (i * 7) % 256);
      const source = vscode.Uri.joinPath(scratch(), 'runner ✓.bin');
      await vscode.workspace.fs.writeFile(source, bytes);
      const id = await vscode.commands.executeCommand<number>(COMMANDS.uploadAttachment, item, source);
      assert.equal(typeof id, 'number');
      const files = (await api.tree.getChildren(
        await itemNode(api, target.alice, 'Infrastructure', fixture.items.ci.label),
      )) as FileNode[];
      const uploaded = files.find((file) => file.kind === 'file' && file.file.name === 'runner ✓.bin');
      assert.ok(uploaded, `listed: ${files.map((f) => f.kind)}`);
      assert.equal(uploaded.file.size, 3000);
      const savedTo = vscode.Uri.joinPath(scratch(), 'saved.bin');
      const noticesBefore = api.notifier.notices.length;
      await vscode.commands.executeCommand(COMMANDS.saveAttachment, uploaded, savedTo);
      assert.match(
        api.notifier.notices
          .slice(noticesBefore)
          .map((n) => n.text)
          .join('\n'),
        /Saved "runner ✓\.bin" to /,
      );
      assert.ok(
        Buffer.from(await vscode.workspace.fs.readFile(savedTo)).equals(Buffer.from(bytes)),
        'saved bytes differ',
      );

      const before = api.notifier.notices.length;
      assert.equal(await vscode.commands.executeCommand(COMMANDS.openAttachment, uploaded), undefined);
      assert.match(errorsSince(api, before)[0] ?? '', /is not a text file/);
    });

    it('refuses uploads to an item of a read-only folder', async () => {
      const api = await extensionApi();
      const item = await itemNode(api, target.bob, 'Infrastructure', fixture.items.ci.label);
      const source = vscode.Uri.joinPath(scratch(), 'bob.txt');
      await vscode.workspace.fs.writeFile(source, new TextEncoder().encode('nope'));
      const before = api.notifier.notices.length;
      assert.equal(await vscode.commands.executeCommand(COMMANDS.uploadAttachment, item, source), undefined);
      assert.match(errorsSince(api, before)[0] ?? '', /bob has no right to add files/);
    });
  });
}
