import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { COMMANDS } from '../../src/constants.ts';
import type { Fixture } from './fixture.ts';
import { waitFor, waitForHover } from './helpers.ts';

/**
 * A file system in memory for one scheme: documents of a scheme other than `file` (what VS Code for
 * the Web and remote windows hand extensions), without touching the disk.
 */
class MemoryFileSystem implements vscode.FileSystemProvider {
  private readonly files = new Map<string, { data: Uint8Array; mtime: number }>();
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const file = this.files.get(uri.path);
    if (file) return { type: vscode.FileType.File, ctime: 0, mtime: file.mtime, size: file.data.length };
    if ([...this.files.keys()].some((path) => path.startsWith(`${uri.path.replace(/\/$/, '')}/`)))
      return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
    throw vscode.FileSystemError.FileNotFound(uri);
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(): void {}

  readFile(uri: vscode.Uri): Uint8Array {
    const file = this.files.get(uri.path);
    if (!file) throw vscode.FileSystemError.FileNotFound(uri);
    return file.data;
  }

  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    this.files.set(uri.path, { data: content, mtime: Date.now() });
    this.emitter.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  delete(uri: vscode.Uri): void {
    this.files.delete(uri.path);
  }

  rename(): void {
    throw vscode.FileSystemError.NoPermissions('rename');
  }
}

/**
 * Issue #23.1: hover and quick fixes work in every document the checks look at, not only in `file`
 * and `untitled` ones. (In code-server's Node host documents are `file:`; the web check covers the
 * `vscode-remote:` documents of the web worker host.)
 */
export function schemeTests(fixture: Fixture): void {
  const { db } = fixture.items;

  describe('documents of other schemes (VS Code for the Web, remote repositories)', () => {
    const scheme = 'vscode-vfs';
    const memory = new MemoryFileSystem();
    let registration: vscode.Disposable;
    // A fresh literal: never on disk, never in the vault.
    const literal = `Vfs-${randomBytes(6).toString('hex')}Q!`;
    const uri = vscode.Uri.from({ scheme, authority: 'test', path: '/repo/app.env' });

    before(() => {
      registration = vscode.workspace.registerFileSystemProvider(scheme, memory);
      memory.writeFile(
        uri,
        new TextEncoder().encode(`DB_PASS=vaultline://${db.id}/password\nAPP_PASSWORD=${literal}\n`),
      );
    });

    after(async () => {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      registration.dispose();
    });

    it('hovers a reference in a vscode-vfs document', async () => {
      const document = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(document);
      const text = await waitForHover(uri, new vscode.Position(0, 14), `a hover in a ${scheme} document`);
      assert.match(text, new RegExp(db.label));
      assert.ok(!text.includes(db.password));
    });

    it('offers "Store in Vaultline" on a secret in a vscode-vfs document', async () => {
      const diagnostic = await waitFor(
        () =>
          vscode.languages
            .getDiagnostics(uri)
            .find((entry) => entry.source === 'Vaultline' && entry.code === 'password-assignment'),
        `the secret warning in a ${scheme} document`,
      );
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
        'vscode.executeCodeActionProvider',
        uri,
        diagnostic.range,
      );
      assert.ok(
        actions.some((action) => action.command?.command === COMMANDS.storeSecret),
        `actions: ${actions.map((action) => action.title).join(' | ')}`,
      );
    });
  });
}
