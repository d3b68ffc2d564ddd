import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../../src/constants.ts';
import { errorsSince, extensionApi, hoverAt, logMark, logSince, waitFor, waitForHover } from './helpers.ts';
import type { Target } from './target.ts';

let opened = 0;

/**
 * Languages no test has inserted into yet: the insert remembers its last choice per language, and
 * the references tests run once per server in one extension host.
 */
const freshLanguages = ['ini', 'yaml', 'shellscript', 'dockerfile', 'makefile', 'bat', 'powershell'];

/**
 * Opens an untitled document with the given text in an editor (nothing on disk). Each gets its own
 * name: VS Code reuses `Untitled-N` names, and a reused name can meet a stale copy of the closed
 * document in the extension host.
 */
async function openText(content: string, language = 'properties'): Promise<vscode.TextEditor> {
  const uri = vscode.Uri.parse(`untitled:vaultline-references-${process.pid}-${++opened}.txt`);
  const document = await vscode.languages.setTextDocumentLanguage(
    await vscode.workspace.openTextDocument(uri),
    language,
  );
  const editor = await vscode.window.showTextDocument(document);
  await editor.edit((builder) => builder.insert(new vscode.Position(0, 0), content));
  await waitFor(() => vscode.window.activeTextEditor?.document === document, 'the editor to be active');
  return editor;
}

/** Closes every editor the test opened, without a save prompt. */
async function closeEditors(): Promise<void> {
  for (let i = 0; i < 10 && vscode.window.activeTextEditor; i++)
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
}

function referenceDiagnostics(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages
    .getDiagnostics(uri)
    .filter((diagnostic) => String(diagnostic.code ?? '').startsWith('reference-'));
}

export function referenceTests(target: Target): void {
  const { db, web, ci, stripe } = target.items;
  const secrets = Object.values(target.items).map((item) => item.password);
  const { alice, bob } = target;

  describe(`references on ${target.title}`, () => {
    afterEach(closeEditors);

    it('inserts a reference to an item field, not its value, and names a non-default connection', async () => {
      const editor = await openText('DB_PASS=\nWEB_PASS=\n');
      editor.selection = new vscode.Selection(0, 8, 0, 8);
      const count = await vscode.commands.executeCommand(
        COMMANDS.insertReference,
        { connection: alice, itemId: db.id, label: db.label },
        'password',
        'reference',
      );
      assert.equal(count, 1);
      editor.selection = new vscode.Selection(1, 9, 1, 9);
      await vscode.commands.executeCommand(
        COMMANDS.insertReference,
        { connection: bob, itemId: web.id, label: web.label },
        'password',
        'reference',
      );
      const text = editor.document.getText();
      assert.equal(
        text,
        `DB_PASS=vaultline://${db.id}/password\nWEB_PASS=vaultline://${bob}@${web.id}/password\n`,
      );
      for (const secret of secrets) assert.ok(!text.includes(secret));
    });

    it('still inserts the plain value when asked to', async () => {
      const editor = await openText('LOGIN=');
      editor.selection = new vscode.Selection(0, 6, 0, 6);
      await vscode.commands.executeCommand(
        COMMANDS.insertReference,
        { connection: alice, itemId: db.id },
        'login',
        'value',
      );
      assert.equal(editor.document.getText(), `LOGIN=${db.login}`);
    });

    it('asks reference or value and offers the last choice of the language first', async () => {
      const [first, second] = freshLanguages.splice(0, 2);
      if (!first || !second) throw new Error('no fresh language left for this test');
      const editor = await openText('X=', first);
      editor.selection = new vscode.Selection(0, 2, 0, 2);
      const item = { connection: alice, itemId: db.id, label: db.label };
      // First time in these files: Reference comes first; take the second entry, Value.
      let pending = vscode.commands.executeCommand(COMMANDS.insertReference, item, 'login');
      // showQuickPick gives no handle: wait, generously, for it to open.
      await new Promise((resolve) => setTimeout(resolve, 800));
      await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext');
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      await pending;
      assert.equal(editor.document.getText(), `X=${db.login}`);
      // Next time the remembered Value is first: accepting the first entry inserts the value again.
      pending = vscode.commands.executeCommand(COMMANDS.insertReference, item, 'login');
      await new Promise((resolve) => setTimeout(resolve, 800));
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      await pending;
      assert.equal(editor.document.getText(), `X=${db.login}${db.login}`);
      // Another language still starts with Reference.
      const other = await openText('Y=', second);
      other.selection = new vscode.Selection(0, 2, 0, 2);
      pending = vscode.commands.executeCommand(COMMANDS.insertReference, item, 'login');
      await new Promise((resolve) => setTimeout(resolve, 800));
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      await pending;
      assert.equal(other.document.getText(), `Y=vaultline://${db.id}/login`);
      await closeEditors();
    });

    it('hovers a reference with label, folder path and login, never the password', async () => {
      const editor = await openText(`# the database\nDB_PASS=vaultline://${db.id}/password\n`);
      // The first hover request may come before the extension host has the new document.
      const text = await waitForHover(editor.document.uri, new vscode.Position(1, 20));
      assert.match(text, new RegExp(db.label));
      assert.match(text, /Infrastructure \/ Databases/);
      assert.match(text, new RegExp(`Login: ${db.login}`));
      assert.match(text, /command:vaultline\.goToItem/);
      assert.match(text, /command:vaultline\.copyReferencedValue/);
      for (const secret of secrets) assert.ok(!text.includes(secret), 'a password is in the hover');
    });

    it('hovers and checks a reference reading only that item, never every password (read/userpw)', async () => {
      const api = await extensionApi();
      // Cold rights, as after a reload: the folder rights are read once too.
      await vscode.commands.executeCommand(COMMANDS.refresh);
      const mark = logMark(api);
      const editor = await openText(`WEB_PASS=vaultline://${web.id}/password\n`);
      const text = await waitForHover(editor.document.uri, new vscode.Position(0, 14));
      assert.match(text, new RegExp(web.label));
      const log = target.requestLog;
      const requests = logSince(api, mark).filter((line) => line.includes(`[${target.alice}] `));
      if (log.everyItem !== undefined) {
        const everyItem = log.everyItem;
        assert.deepEqual(
          requests.filter((line) => line.includes(` ${everyItem} `)),
          [],
          'a hover read every password of the user',
        );
      }
      // The reads that name the item name it alone (other requests may run meanwhile: the tree
      // reloads after the refresh).
      const reads = requests.filter((line) => log.itemRead(web.id).test(line));
      assert.ok(reads.length > 0, 'the hover read its item');
      for (const line of reads) assert.match(line, log.itemReadAlone(web.id));
      assert.ok(
        requests.some((line) => line.includes(` ${log.folderRights} `)),
        'the folder rights were read',
      );
    });

    it('masks the login in the hover in presentation mode', async () => {
      const api = await extensionApi();
      const editor = await openText(`DB_PASS=vaultline://${db.id}/password\n`);
      await api.presentation.toggle(true);
      try {
        const text = await waitForHover(editor.document.uri, new vscode.Position(0, 12));
        assert.match(text, new RegExp(db.label));
        assert.ok(!text.includes(`Login: ${db.login}`), 'the login is shown in presentation mode');
      } finally {
        await api.presentation.toggle(false);
      }
    });

    it('hovers a malformed or unknown reference with the reason', async () => {
      const editor = await openText('A=vaultline://999999/password\nB=vaultline://7/pin\n');
      const text = await waitForHover(editor.document.uri, new vscode.Position(0, 10));
      assert.match(text, /no item with id 999999/);
      const malformed = await hoverAt(editor.document.uri, new vscode.Position(1, 8));
      assert.match(malformed, /unknown field "pin"/);
    });

    it('warns on references that do not resolve, naming why, and not on those that do', async () => {
      const lines = [
        `OK=vaultline://${db.id}/password`,
        'MISSING=vaultline://999999/password',
        `FIELD=vaultline://${db.id}/pin`,
        // bob's key is bound to bob: the vault does not return an item of a folder bob may not read.
        `NOTREADABLE=vaultline://${bob}@${db.id}/password`,
        `NOCONNECTION=vaultline://nobody@${db.id}/password`,
        `READONLY=vaultline://${stripe.id}/login`,
      ];
      const editor = await openText(`${lines.join('\n')}\n`);
      const uri = editor.document.uri;
      const diagnostics = await waitFor(() => {
        const found = referenceDiagnostics(uri);
        return found.length >= 4 ? found : undefined;
      }, 'reference diagnostics');
      const byLine = new Map(diagnostics.map((d) => [d.range.start.line, d]));
      assert.deepEqual([...byLine.keys()].sort(), [1, 2, 3, 4]);
      assert.equal(byLine.get(1)?.code, 'reference-not_found');
      assert.equal(byLine.get(2)?.code, 'reference-unknown_field');
      assert.equal(byLine.get(3)?.code, 'reference-not_found');
      assert.match(byLine.get(3)?.message ?? '', /may not read it/);
      assert.equal(byLine.get(4)?.code, 'reference-not_found');
      assert.match(byLine.get(4)?.message ?? '', /no Vaultline connection named "nobody"/);
      for (const diagnostic of diagnostics) {
        assert.equal(diagnostic.severity, vscode.DiagnosticSeverity.Warning);
        for (const secret of secrets) assert.ok(!diagnostic.message.includes(secret));
      }
    });

    it('offers a quick fix that points the reference at a chosen item', async () => {
      const editor = await openText('MISSING=vaultline://999999/login\n');
      const uri = editor.document.uri;
      const [diagnostic] = await waitFor(() => {
        const found = referenceDiagnostics(uri);
        return found.length > 0 ? found : undefined;
      }, 'the not-found diagnostic');
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
        'vscode.executeCodeActionProvider',
        uri,
        diagnostic!.range,
      );
      const fix = actions.find((action) => action.command?.command === COMMANDS.fixReference);
      assert.ok(fix, 'no quick fix offered');
      await vscode.commands.executeCommand(fix.command!.command, ...(fix.command!.arguments ?? []), {
        connection: alice,
        itemId: ci.id,
      });
      assert.equal(editor.document.getText(), `MISSING=vaultline://${ci.id}/login\n`);
      await waitFor(() => referenceDiagnostics(uri).length === 0, 'the warning to go away');
    });

    it('goes to the item of a reference in the tree', async () => {
      const api = await extensionApi();
      const done = await vscode.commands.executeCommand(COMMANDS.goToItem, `vaultline://${db.id}/password`);
      assert.equal(done, true);
      const selected = api.treeView.selection[0];
      assert.equal(selected?.kind, 'item');
      assert.equal(selected?.kind === 'item' ? selected.item.id : undefined, db.id);
    });

    it('copies the referenced value with auto-clear', async () => {
      const result = await vscode.commands.executeCommand<{ cleared: Promise<boolean> }>(
        COMMANDS.copyReferencedValue,
        `vaultline://${web.id}/password`,
        1,
      );
      assert.equal(await vscode.env.clipboard.readText(), web.password);
      assert.equal(await result.cleared, true);
      assert.notEqual(await vscode.env.clipboard.readText(), web.password);
    });
  });

  describe(`run and debug with references on ${target.title}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'vaultline-launch-'));

    it('resolves references in env and envFile at launch, in memory only', async () => {
      const api = await extensionApi();
      const envFile = join(dir, 'app.env');
      const envText = `API_TOKEN=vaultline://${ci.id}/password\nPLAIN=from-file\n# note\nexport DB_USER="vaultline://${db.id}/login"\n`;
      writeFileSync(envFile, envText);
      const configuration: vscode.DebugConfiguration = {
        type: 'node',
        request: 'launch',
        name: 'app',
        program: join(dir, 'app.js'),
        envFile,
        env: {
          DB_PASS: `vaultline://${db.id}/password`,
          DSN: `postgres://${db.login}:vaultline://${db.id}/password`,
          PORT: '8080',
        },
      };
      const resolved = await api.references.debug.resolveDebugConfigurationWithSubstitutedVariables(
        undefined,
        configuration,
      );
      assert.deepEqual(resolved?.env, {
        DB_PASS: db.password,
        DSN: `postgres://${db.login}:${db.password}`,
        PORT: '8080',
        API_TOKEN: ci.password,
        DB_USER: db.login,
      });
      assert.equal(resolved?.envFile, envFile);
      assert.equal(readFileSync(envFile, 'utf8'), envText, 'the env file was changed');
      assert.equal(
        configuration.env.DB_PASS,
        `vaultline://${db.id}/password`,
        'the launch configuration was changed',
      );
    });

    it('launches a real Node program whose environment holds the resolved value', async function () {
      this.timeout(60_000);
      const program = join(dir, 'check-env.cjs');
      const result = join(dir, 'result.txt');
      writeFileSync(
        program,
        [
          "const { createHash } = require('node:crypto');",
          "const hash = createHash('sha256').update(process.env.DB_PASS ?? '').digest('hex');",
          "require('node:fs').writeFileSync(process.argv[2], hash === process.argv[3] ? 'match' : 'mismatch');",
        ].join('\n'),
      );
      const started = await vscode.debug.startDebugging(undefined, {
        type: 'node',
        request: 'launch',
        name: 'check env',
        program,
        args: [result, createHash('sha256').update(db.password).digest('hex')],
        env: { DB_PASS: `vaultline://${db.id}/password` },
        console: 'internalConsole',
      });
      assert.equal(started, true);
      // The file exists (empty) between the program's open and its write: wait for a whole verdict.
      const outcome = await waitFor(
        () => {
          const text = existsSync(result) ? readFileSync(result, 'utf8') : '';
          return text === 'match' || text === 'mismatch' ? text : undefined;
        },
        'the program to write its result',
        45_000,
      );
      assert.equal(outcome, 'match');
    });

    it('reads a relative envFile from the workspace folder', async () => {
      const api = await extensionApi();
      const folder = vscode.workspace.workspaceFolders?.[0];
      assert.ok(folder, 'the suite needs a workspace folder');
      const uri = vscode.Uri.joinPath(folder.uri, 'relative-launch.env');
      await vscode.workspace.fs.writeFile(
        uri,
        new TextEncoder().encode(`TOKEN=vaultline://${ci.id}/password\n`),
      );
      try {
        const resolved = await api.references.debug.resolveDebugConfigurationWithSubstitutedVariables(
          folder,
          {
            type: 'node',
            request: 'launch',
            name: 'relative',
            envFile: 'relative-launch.env',
          },
        );
        assert.deepEqual(resolved?.env, { TOKEN: ci.password });
      } finally {
        await vscode.workspace.fs.delete(uri);
      }
    });

    it('passes configurations without references through untouched', async () => {
      const api = await extensionApi();
      const configuration = { type: 'node', request: 'launch', name: 'plain', env: { A: '1' } };
      const resolved = await api.references.debug.resolveDebugConfigurationWithSubstitutedVariables(
        undefined,
        configuration,
      );
      assert.equal(resolved, configuration);
    });

    it('stops a launch whose reference does not resolve, naming the reference', async () => {
      const api = await extensionApi();
      const before = api.notifier.notices.length;
      const resolved = await api.references.debug.resolveDebugConfigurationWithSubstitutedVariables(
        undefined,
        {
          type: 'node',
          request: 'launch',
          name: 'broken',
          env: { A: 'vaultline://999999/password', B: `vaultline://${db.id}/password` },
        },
      );
      assert.equal(resolved, undefined);
      const [error] = errorsSince(api, before);
      assert.match(error ?? '', /vaultline:\/\/999999\/password/);
      for (const secret of secrets) assert.ok(!(error ?? '').includes(secret));
    });

    it('opens a terminal whose environment holds resolved references', async () => {
      const api = await extensionApi();
      const before = api.notifier.notices.length;
      const terminal = await vscode.commands.executeCommand<vscode.Terminal | undefined>(
        COMMANDS.runWithValues,
        undefined,
        undefined,
        [
          { name: 'DB_PASS', value: `vaultline://${db.id}/password` },
          { name: 'AUTH', value: `Bearer vaultline://${web.id}/password` },
        ],
      );
      assert.ok(terminal, errorsSince(api, before).join('; '));
      try {
        const options = terminal.creationOptions as vscode.TerminalOptions;
        assert.deepEqual(options.env, { DB_PASS: db.password, AUTH: `Bearer ${web.password}` });
        assert.equal(options.isTransient, true);
      } finally {
        terminal.dispose();
      }
    });
  });
}
