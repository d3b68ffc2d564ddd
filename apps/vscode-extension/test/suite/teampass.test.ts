import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS } from '../../src/constants.ts';
import type { MessageNode } from '../../src/tree-nodes.ts';
import type { Fixture } from './fixture.ts';
import {
  connect,
  disconnect,
  errorsSince,
  extensionApi,
  itemNode,
  logMark,
  logSince,
  waitFor,
  waitForHover,
} from './helpers.ts';

/** What only a TeamPass server shows: its own error words, a release without file endpoints (#9). */
export function teampassOnlyTests(fixture: Fixture): void {
  describe("TeamPass's own words", () => {
    after(() => disconnect('tp-ghost'));

    it('shows the server\'s message next to the plain sentence ("User does not exist")', async () => {
      const api = await extensionApi();
      await connect({
        name: 'tp-ghost',
        url: fixture.teampass.url,
        login: 'ghost',
        apiKey: fixture.teampass.key,
        saveUnverified: true,
      });
      const [row] = (await api.tree.getChildren(
        (
          await api.tree.getChildren()
        ).find((node) => node.kind === 'connection' && node.connection === 'tp-ghost'),
      )) as MessageNode[];
      assert.equal(row?.kind, 'message');
      assert.match(row.text, /^tp-ghost: .*The vault said: "User does not exist"\.$/);
      assert.equal(row.text.includes(fixture.teampass.key), false);
    });
  });

  describe('references on a shared TeamPass key', () => {
    afterEach(async () => {
      for (let i = 0; i < 5 && vscode.window.activeTextEditor; i++)
        await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    });

    it('decides from folder rights and the named item: forbidden stays forbidden, no read/userpw', async () => {
      const api = await extensionApi();
      const { db, web } = fixture.teampass.items;
      const mark = logMark(api);
      // bob may read Infrastructure only; TeamPass's key itself reads everything.
      const document = await vscode.workspace.openTextDocument({
        language: 'properties',
        content: `A=vaultline://tp-alice@${db.id}/password\nB=vaultline://tp-bob@${db.id}/password\nC=vaultline://tp-bob@${web.id}/login\n`,
      });
      await vscode.window.showTextDocument(document);
      const hover = (line: number) =>
        waitForHover(document.uri, new vscode.Position(line, 20), `a hover on line ${line}`);
      assert.match(await hover(0), new RegExp(db.label));
      assert.match(await hover(1), /no right to read/);
      assert.match(await hover(2), new RegExp(web.label));
      const diagnostics = await waitFor(() => {
        const found = vscode.languages
          .getDiagnostics(document.uri)
          .filter((entry) => String(entry.code ?? '').startsWith('reference-'));
        return found.length > 0 ? found : undefined;
      }, 'the forbidden reference warning');
      assert.deepEqual(
        diagnostics.map((entry) => [entry.range.start.line, entry.code]),
        [[1, 'reference-forbidden']],
      );
      const requests = logSince(api, mark).filter((line) => /\[tp-(alice|bob)\] /.test(line));
      assert.deepEqual(
        requests.filter((line) => / readUserItems /.test(line)),
        [],
        'a hover or check read every password of the user',
      );
      // The reads that name these items name only them, alone (a hover) or together (the
      // document's check); other documents' checks may run meanwhile.
      const named = `(${db.id}|${web.id})`;
      const reads = requests.filter((entry) =>
        new RegExp(` readItems .*/read/items/(.*;)?${named}(;|\\?|$)`).test(entry),
      );
      assert.ok(reads.length > 0, 'the named items were read');
      for (const line of reads) assert.match(line, new RegExp(`/read/items/${named}(;${named})*(\\?|$)`));
    });
  });

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
