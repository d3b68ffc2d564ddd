import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createVaultClient } from '@vaultline/protocol';
import * as vscode from 'vscode';
import { COMMANDS } from '../../src/constants.ts';
import { vscodeHash } from '../../src/secrets/local-history.ts';
import type { StoredSecret } from '../../src/secrets/store-secret.ts';
import type { Fixture } from './fixture.ts';
import { errorsSince, extensionApi, waitFor } from './helpers.ts';

/** Every copy in Local History: its folder's entries.json resource, its path, its text. */
function historyCopies(home: string): { resource: string; path: string; text: string }[] {
  if (!existsSync(home)) return [];
  return readdirSync(home).flatMap((folder) => {
    const entries = join(home, folder, 'entries.json');
    if (!existsSync(entries)) return [];
    const { resource } = JSON.parse(readFileSync(entries, 'utf8')) as { resource: string };
    return readdirSync(join(home, folder))
      .filter((name) => name !== 'entries.json')
      .map((name) => {
        const path = join(home, folder, name);
        return { resource, path, text: readFileSync(path, 'utf8') };
      });
  });
}

/** Edits and saves a file through an editor, as a person would: a save is what Local History copies. */
async function editAndSave(uri: vscode.Uri, insert: string): Promise<vscode.TextDocument> {
  const document = await vscode.workspace.openTextDocument(uri);
  const editor = await vscode.window.showTextDocument(document);
  await editor.edit((builder) => builder.insert(new vscode.Position(0, 0), insert));
  // One retry: code-server's local history can race the first save of a file written outside it.
  await waitFor(async () => (await document.save()) || !document.isDirty, 'the file to be saved');
  return document;
}

/**
 * Issue #23.2: after "Store in Vaultline and replace", VS Code's Local History (`User/History`)
 * kept the plaintext in the copies of earlier saves. Read on disk, in the real host.
 */
export function localHistoryTests(fixture: Fixture): void {
  const home = join(fixture.userDataDir, 'User', 'History');
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const created: number[] = [];

  describe("VS Code's Local History", () => {
    after(async () => {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      if (folder)
        for (const name of ['history-guard.env', 'history-guard.yaml', 'history-secret.yaml'])
          await vscode.workspace.fs
            .delete(vscode.Uri.joinPath(folder, name))
            .then(undefined, () => undefined);
      if (created.length > 0)
        await createVaultClient({ baseUrl: fixture.url, auth: fixture.keys.alice }).items.delete(created);
    });

    it('keeps no copies of .env and key files (a default Vaultline contributes), and still of other files', async () => {
      const exclude = vscode.workspace
        .getConfiguration('workbench.localHistory')
        .get<Record<string, boolean>>('exclude');
      for (const glob of ['**/.env', '**/.env.*', '**/*.env', '**/*.pem', '**/*.key'])
        assert.equal(exclude?.[glob], true, `${glob} in ${JSON.stringify(exclude)}`);
      const env = vscode.Uri.joinPath(folder!, 'history-guard.env');
      const yaml = vscode.Uri.joinPath(folder!, 'history-guard.yaml');
      await vscode.workspace.fs.writeFile(env, new TextEncoder().encode('PORT=8080\n'));
      await vscode.workspace.fs.writeFile(yaml, new TextEncoder().encode('port: 8080\n'));
      await editAndSave(env, '# saved\n');
      await editAndSave(yaml, '# saved\n');
      // The yaml file's copy shows the history runs (and is read right); saves are copied in order.
      await waitFor(
        () => historyCopies(home).some((copy) => copy.resource.endsWith('/history-guard.yaml')),
        'a Local History copy of the yaml file',
        20_000,
      );
      assert.deepEqual(
        historyCopies(home).filter((copy) => copy.resource.endsWith('/history-guard.env')),
        [],
      );
    });

    it('names the folder of each file as VS Code does', () => {
      const folders = readdirSync(home).filter((name) => existsSync(join(home, name, 'entries.json')));
      assert.ok(folders.length > 0);
      for (const name of folders) {
        const { resource } = JSON.parse(readFileSync(join(home, name, 'entries.json'), 'utf8')) as {
          resource: string;
        };
        assert.equal(vscodeHash(resource).toString(16), name, resource);
      }
    });

    it('replaces a stored secret with its reference in every copy at once, and says so (issue #31.1: a question that hid itself left it there)', async () => {
      const api = await extensionApi();
      const literal = fixture.detection.history;
      const uri = vscode.Uri.joinPath(folder!, 'history-secret.yaml');
      await vscode.workspace.fs.writeFile(
        uri,
        new TextEncoder().encode(`db:\n  host: db.internal\n  password: ${literal}\n`),
      );
      const document = await editAndSave(uri, '# v1\n');
      const before = await waitFor(
        () => {
          const copies = historyCopies(home).filter((copy) => copy.text.includes(literal));
          return copies.length > 0 ? copies : undefined;
        },
        'a Local History copy holding the literal',
        20_000,
      );
      const mtimes = before.map((copy) => statSync(copy.path).mtimeMs);

      // The warning of the text as saved (the one from before the edit sits a line higher).
      const diagnostic = await waitFor(
        () =>
          vscode.languages
            .getDiagnostics(uri)
            .find(
              (entry) => entry.code === 'password-assignment' && document.getText(entry.range) === literal,
            ),
        'the secret warning',
      );
      const notices = api.notifier.notices.length;
      const stored = await vscode.commands.executeCommand<StoredSecret>(
        COMMANDS.storeSecret,
        uri,
        diagnostic.range,
        { connection: 'alice', folderId: fixture.folders.infra, label: 'history secret' },
      );
      assert.ok(stored, `the store command failed: ${errorsSince(api, notices).join('; ')}`);
      created.push(stored.itemId);
      // Nothing to answer: the copies were cleaned before the command returned.
      assert.deepEqual(stored.localHistory, { copies: before.length, replaced: before.length });
      const told = api.notifier.notices.slice(notices).find((notice) => /Local History/.test(notice.text));
      assert.equal(
        told?.text,
        before.length === 1
          ? "Vaultline: replaced the secret with its reference in 1 earlier copy of history-secret.yaml in VS Code's Local History (the copy keeps every other change)."
          : `Vaultline: replaced the secret with its reference in ${before.length} earlier copies of history-secret.yaml in VS Code's Local History (the copies keep every other change).`,
      );
      assert.deepEqual(told?.actions, []);
      assert.ok(!told?.text.includes(literal));
      const after = historyCopies(home);
      assert.ok(!after.some((copy) => copy.text.includes(literal)), 'a copy still holds the literal');
      for (const [i, copy] of before.entries()) {
        const now = readFileSync(copy.path, 'utf8');
        assert.equal(now, copy.text.split(literal).join(stored.reference), 'every other change is kept');
        // VS Code reads times in whole milliseconds.
        assert.ok(Math.abs(statSync(copy.path).mtimeMs - mtimes[i]!) < 1, 'its time is kept');
      }
      // Saved now: the file and its new copy hold the reference only.
      await waitFor(async () => (await document.save()) || !document.isDirty, 'the file to be saved');
      assert.ok(readFileSync(uri.fsPath, 'utf8').includes(`password: ${stored.reference}`));
    });
  });
}
