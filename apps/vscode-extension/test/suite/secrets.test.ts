import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS } from '../../src/constants.ts';
import { detectSecrets } from '../../src/secrets/detect-secrets.ts';
import { proposeLabel, type StoredSecret } from '../../src/secrets/store-secret.ts';
import { buildCorpus, score } from '../detection/corpus.ts';
import type { Fixture } from './fixture.ts';
import { errorsSince, extensionApi, setConfig, waitFor } from './helpers.ts';
import type { Target } from './target.ts';

function secretDiagnostics(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages
    .getDiagnostics(uri)
    .filter(
      (diagnostic) => diagnostic.source === 'Vaultline' && !String(diagnostic.code).startsWith('reference-'),
    );
}

export function secretTests(fixture: Fixture, target: Target): void {
  const { token, password } = fixture.detection;
  const { alice } = target;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const source = [
    'import { Octokit } from "octokit";',
    `const octokit = new Octokit({ auth: "${token}" });`,
    `const dbPassword = "${password}";`,
    'const placeholder = "changeme";',
    'const fromEnv = process.env.DB_PASSWORD;',
    '',
  ].join('\n');

  describe(`secret detection on ${target.title}`, () => {
    let uri: vscode.Uri;
    const created: number[] = [];

    before(async () => {
      if (!folder) throw new Error('the suite needs a workspace folder');
      uri = vscode.Uri.joinPath(folder, 'detect-me.ts');
      await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(source));
    });

    after(async () => {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.workspace.fs.delete(uri).then(undefined, () => undefined);
      await setConfig('secretDetection.maxFileSize', undefined);
      // Leave the vault as the later tests and the UI check expect it.
      if (created.length > 0) {
        await target.client().items.delete(created);
      }
    });

    it('meets its precision and recall goals on the corpus, in the extension host', () => {
      const result = score(buildCorpus(), (text, languageId) =>
        detectSecrets(text, { languageId }).map((finding) => finding.secret),
      );
      assert.ok(result.precision >= 0.95, `precision ${result.precision}: ${result.falseAlarms.join('; ')}`);
      assert.ok(result.recall >= 0.9, `recall ${result.recall}: ${result.misses.join('; ')}`);
    });

    it('proposes the label from the variable name', () => {
      assert.equal(proposeLabel({ name: 'DB_PASSWORD', title: 'x' }, '/w/.env'), 'db password');
      assert.equal(proposeLabel({ name: 'stripeSecretKey', title: 'x' }, '/w/a.ts'), 'stripe secret key');
      assert.equal(proposeLabel({ title: 'GitHub token' }, '/w/src/app.ts'), 'GitHub token (app.ts)');
    });

    it('marks the token and the password, not placeholders or code, without the literal in the message', async () => {
      const document = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(document);
      const diagnostics = await waitFor(() => {
        const found = secretDiagnostics(uri);
        return found.length >= 2 ? found : undefined;
      }, 'secret diagnostics');
      assert.deepEqual(
        diagnostics.map((d) => [d.range.start.line, d.code]),
        [
          [1, 'github-token'],
          [2, 'password-assignment'],
        ],
      );
      assert.equal(document.getText(diagnostics[0]!.range), token);
      assert.equal(document.getText(diagnostics[1]!.range), password);
      for (const diagnostic of diagnostics) {
        assert.ok(!diagnostic.message.includes(token) && !diagnostic.message.includes(password));
        assert.equal(diagnostic.severity, vscode.DiagnosticSeverity.Warning);
      }
    });

    it('does not scan documents over the size limit', async () => {
      await setConfig('secretDetection.maxFileSize', 100);
      await waitFor(() => secretDiagnostics(uri).length === 0, 'the diagnostics to be cleared');
      await setConfig('secretDetection.maxFileSize', undefined);
      await waitFor(() => secretDiagnostics(uri).length === 2, 'the diagnostics to come back');
    });

    it('refuses a folder where the login may not add items', async () => {
      const api = await extensionApi();
      const before = api.notifier.notices.length;
      const [diagnostic] = secretDiagnostics(uri);
      const result = await vscode.commands.executeCommand(COMMANDS.storeSecret, uri, diagnostic!.range, {
        connection: alice,
        folderId: target.folders.payments,
        label: 'nope',
      });
      assert.equal(result, undefined);
      assert.match(errorsSince(api, before)[0] ?? '', /alice may not add items to folder/);
      assert.ok(vscode.window.activeTextEditor?.document.getText().includes(token));
    });

    it('stores a detected secret in the vault and replaces it with a reference', async () => {
      const [tokenDiagnostic] = secretDiagnostics(uri);
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
        'vscode.executeCodeActionProvider',
        uri,
        tokenDiagnostic!.range,
      );
      const store = actions.find(
        (action) => action.title === 'Store in Vaultline and replace with a reference',
      );
      assert.ok(store?.command, 'no store action offered');
      const stored = await vscode.commands.executeCommand<StoredSecret>(
        store.command.command,
        ...(store.command.arguments ?? []),
        { connection: alice, folderId: target.folders.infra, label: 'octokit auth' },
      );
      assert.ok(stored, 'the store command failed');
      created.push(stored.itemId);
      assert.equal(stored.reference, `vaultline://${stored.itemId}/password`);

      const document = await vscode.workspace.openTextDocument(uri);
      assert.ok(!document.getText().includes(token), 'the literal is still in the file');
      assert.ok(document.getText().includes(`auth: "vaultline://${stored.itemId}/password"`));

      const item = await target.client().items.get(stored.itemId);
      assert.equal(item.password, token);
      assert.equal(item.label, 'octokit auth');
      assert.equal(item.folderId, target.folders.infra);

      await waitFor(() => secretDiagnostics(uri).length === 1, 'the token diagnostic to go away');
    });

    it('stores an assigned password under the proposed label', async () => {
      const [diagnostic] = secretDiagnostics(uri);
      const stored = await vscode.commands.executeCommand<StoredSecret>(
        COMMANDS.storeSecret,
        uri,
        diagnostic!.range,
        {
          connection: alice,
          folderId: target.folders.databases,
          label: proposeLabel({ name: 'dbPassword', title: '' }, uri.fsPath),
        },
      );
      created.push(stored.itemId);
      const document = await vscode.workspace.openTextDocument(uri);
      assert.ok(document.getText().includes(`const dbPassword = "vaultline://${stored.itemId}/password";`));
      // Saved only now that no literal is left: what VS Code keeps of saves (local history) holds references.
      // One retry: code-server's local history can race the first save of a file written outside it.
      await waitFor(async () => (await document.save()) || !document.isDirty, 'the file to be saved');
      const onDisk = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      assert.ok(!onDisk.includes(token) && !onDisk.includes(password));
      assert.ok(onDisk.includes(stored.reference));
      const item = await target.client().items.get(stored.itemId);
      assert.equal(item.password, password);
      assert.equal(item.label, 'db password');
    });
  });
}
