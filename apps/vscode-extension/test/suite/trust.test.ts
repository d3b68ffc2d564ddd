import * as assert from 'node:assert/strict';
import { createVaultClient, generatePassword } from '@vaultline/protocol';
import * as vscode from 'vscode';
import { ATTACHMENT_SCHEME, COMMANDS, EXTENSION_ID } from '../../src/constants.ts';
import type { FileNode, MessageNode } from '../../src/tree-nodes.ts';
import type { Fixture } from './fixture.ts';
import {
  connect,
  connectDown,
  connectionNode,
  disconnect,
  errorsSince,
  extensionApi,
  folderNode,
  folderPaths,
  itemNode,
  itemNodes,
  logMark,
  logSince,
  offered,
  roots,
  startRelay,
  waitFor,
  workspaceSettingsUri,
} from './helpers.ts';

const WRONG_KEY = 'revoked-key-0123456789abcdef0123456789abcdef';
const accept = () => vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function attachmentTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all
    .flatMap((group) => group.tabs)
    .filter((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.scheme === ATTACHMENT_SCHEME);
}

/** Tests of issue #11 ("answers a user can trust") and #15's NE rights, each failing without its fix. */
export function trustTests(fixture: Fixture): void {
  describe('a search that cannot run says why, with the fix', () => {
    after(async () => {
      for (const name of ['revoked', 'down']) await disconnect(name);
    });

    it("with a rejected key: the tree's words, Connect (prefilled) as the fix, the other connections' hits kept", async () => {
      const api = await extensionApi();
      await connect({
        name: 'revoked',
        url: fixture.url,
        login: 'alice',
        apiKey: WRONG_KEY,
        saveUnverified: true,
      });
      const [row] = (await api.tree.getChildren(await connectionNode(api, 'revoked'))) as MessageNode[];
      const outcome = await api.search.find(fixture.items.web.label);
      const problem = outcome.problems.find((p) => p.connection === 'revoked');
      assert.ok(problem, `problems: ${JSON.stringify(outcome.problems)}`);
      assert.equal(problem.text, row?.text);
      assert.match(problem.text, /^revoked: the vault rejected the API key/);
      assert.deepEqual(problem.fix, {
        title: 'Connect',
        command: COMMANDS.connect,
        args: [{ reconnect: 'revoked' }],
      });
      assert.ok(outcome.hits.some((hit) => hit.connection === 'alice'));
      const entries = api.search.entries(fixture.items.web.label, outcome);
      const labels = entries.map((entry) => entry.label);
      // Issue #31.3: the failed connection's row comes after every hit, so a hit is the first row.
      const lastHit = entries.findLastIndex((entry) => entry.hit !== undefined);
      const problemAt = entries.findIndex((entry) =>
        entry.description?.startsWith('revoked: the vault rejected'),
      );
      // Its words are not in its label: VS Code ranks rows whose label matches the text typed first.
      assert.equal(entries[problemAt]?.label, '$(error)');
      assert.ok(entries[0]?.hit, labels.join(' | '));
      assert.ok(problemAt > lastHit, labels.join(' | '));
      assert.ok(!labels.some((label) => /No item has every word/.test(label)), labels.join(' | '));
    });

    it("preselects the best hit, never the failed connection's row, and keeps that order on screen", async () => {
      const api = await extensionApi();
      const chosen = api.search.pick();
      const quickPick = await waitFor(() => api.search.active, 'the QuickPick');
      try {
        quickPick.value = fixture.items.web.label;
        await waitFor(
          () => quickPick.items.some((e) => e.problem?.connection === 'revoked') && !quickPick.busy,
          'the entries with the problem row',
        );
        const active = await waitFor(() => quickPick.activeItems[0], 'an active row');
        assert.equal(active.hit?.item.id, fixture.items.web.id, active.label);
      } finally {
        quickPick.hide();
      }
      assert.equal(await chosen, undefined);
    });

    it('with the folder list down: the tree\'s words and Retry; never "no item"', async () => {
      const api = await extensionApi();
      await connectDown(fixture);
      const outcome = await api.search.find('no-such-label-anywhere');
      const problem = outcome.problems.find((p) => p.connection === 'down');
      assert.ok(problem, `problems: ${JSON.stringify(outcome.problems)}`);
      assert.equal(problem.text, 'down: cannot reach the vault. Is the server running and the URL right?');
      // The fix is the tree row's own Retry.
      assert.equal(problem.fix.command, COMMANDS.retry);
      assert.equal(problem.fix.title, 'Retry');
      assert.equal((problem.fix.args?.[0] as MessageNode | undefined)?.connection, 'down');
      const labels = api.search.entries('no-such-label-anywhere', outcome).map((entry) => entry.label);
      assert.ok(!labels.some((label) => /No item has every word/.test(label)), labels.join(' | '));
    });

    it('Enter on the problem runs its fix: the connect dialog opens on that connection', async () => {
      const api = await extensionApi();
      const chosen = api.search.pick();
      const quickPick = await waitFor(() => api.search.active, 'the QuickPick');
      quickPick.value = 'web';
      const entry = await waitFor(
        () => quickPick.items.find((e) => e.problem?.connection === 'revoked'),
        'the problem entry',
      );
      // Accepted again while the results refresh (a later query may replace the entries), bounded.
      for (let i = 0; i < 40 && !api.connectFlow.active; i++) {
        const current = quickPick.items.find((e) => e.problem?.connection === 'revoked') ?? entry;
        if (api.search.active === quickPick) {
          quickPick.activeItems = [current];
          await sleep(100);
          await accept();
        }
        await sleep(150);
      }
      const box = await waitFor(
        () => api.connectFlow.active,
        `the connect dialog (pick open: ${api.search.active === quickPick}; items: ${quickPick.items.map((e) => e.label).join(' | ')}; notices: ${api.notifier.notices
          .slice(-3)
          .map((n) => n.text)
          .join(' | ')})`,
        3000,
      );
      assert.equal(box.value, 'revoked');
      assert.equal(box.step, 1);
      box.hide();
      assert.equal(await chosen, undefined);
    });
  });

  describe('refresh', () => {
    it('the title bar Refresh reloads every root, even with a row passed along, after a server stopped', async () => {
      const api = await extensionApi();
      const relay = await startRelay(fixture.url);
      try {
        assert.equal(
          await connect({ name: 'relayed', url: relay.url, login: 'alice', apiKey: fixture.keys.alice }),
          true,
        );
        const healthy = await folderNode(api, 'relayed', 'Infrastructure');
        assert.equal(healthy.kind, 'folder');
        await relay.stop();
        const aliceFolder = await folderNode(api, 'alice', 'Infrastructure');
        const from = logMark(api);
        // VS Code hands a title action the focused row: the title's Refresh still reloads all.
        await vscode.commands.executeCommand(COMMANDS.refresh, aliceFolder);
        const [row] = await api.tree.getChildren(await connectionNode(api, 'relayed'));
        assert.equal(row?.kind, 'message');
        assert.match((row as MessageNode).text, /^relayed: cannot reach the vault/);
        for (const root of await roots(api)) await api.tree.getChildren(root);
        const reloaded = new Set(
          logSince(api, from)
            .filter((line) => / readUserFolders /.test(line))
            .map((line) => /\[([^\]]+)\]/.exec(line)?.[1]),
        );
        for (const name of ['alice', 'bob', 'relayed']) assert.ok(reloaded.has(name), `${name} reloaded`);

        // A row's own Refresh reloads that row only.
        const rowFrom = logMark(api);
        await vscode.commands.executeCommand(COMMANDS.refreshNode, aliceFolder);
        await itemNodes(api, aliceFolder);
        const requests = logSince(api, rowFrom).filter((line) => /^(info|warn) \[/.test(line));
        assert.ok(
          requests.length > 0 && requests.every((line) => line.includes('[alice]')),
          requests.join('\n'),
        );
        assert.ok(!requests.some((line) => line.includes('readUserFolders')), requests.join('\n'));
      } finally {
        await relay.stop();
        await disconnect('relayed');
      }
    });
  });

  describe('settings a workspace cannot weaken', () => {
    it('a hostile .vscode/settings.json cannot lengthen the clear delay, turn presentation mode off, or change timeouts and connections', async () => {
      const api = await extensionApi();
      const config = () => vscode.workspace.getConfiguration('vaultline');
      await vscode.commands.executeCommand(COMMANDS.presentationModeOn);
      const uri = workspaceSettingsUri();
      try {
        await vscode.workspace.fs.writeFile(
          uri,
          new TextEncoder().encode(
            JSON.stringify({
              'vaultline.clipboardClearSeconds': 600,
              'vaultline.presentationMode': false,
              'vaultline.requestTimeoutMs': 120000,
              'vaultline.connections': [{ name: 'evil', url: 'http://127.0.0.1:9', login: 'alice' }],
              // A harmless window setting: proves the file was read.
              'vaultline.treePageSize': 777,
            }),
          ),
        );
        await waitFor(() => config().get('treePageSize') === 777, 'the workspace settings to load', 20_000);
        assert.equal(config().get('clipboardClearSeconds'), 30);
        assert.equal(config().get('requestTimeoutMs'), 10_000);
        assert.equal(config().get('presentationMode'), true);
        assert.equal(api.presentation.enabled, true);
        assert.equal(api.presentation.indicatorVisible, true);
        assert.ok(!(await roots(api)).some((root) => root.connection === 'evil'));
        const node = await itemNode(api, 'alice', 'Infrastructure', fixture.items.web.label);
        await vscode.commands.executeCommand(COMMANDS.copyField, node, 'login');
        const status = await waitFor(
          () => api.clipboard.statusText.match(/Login clears in (\d+)s/) ?? undefined,
          'the countdown',
        );
        assert.ok(Number(status[1]) <= 30, `clears in ${status[1]}s`);
        await api.clipboard.flush();
      } finally {
        await vscode.workspace.fs.delete(vscode.Uri.joinPath(uri, '..'), {
          recursive: true,
          useTrash: false,
        });
        await waitFor(() => config().get('treePageSize') === 1000, 'the workspace settings to go', 20_000);
        await vscode.commands.executeCommand(COMMANDS.presentationModeOff);
      }
      assert.equal(api.presentation.enabled, false);
      assert.equal(api.presentation.indicatorVisible, false);
    });

    it('declares every protecting setting machine- or application-scoped and restricted', () => {
      const manifest = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as {
        capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
        contributes: { configuration: { properties: Record<string, { scope?: string }> } };
      };
      const { properties } = manifest.contributes.configuration;
      for (const key of [
        'vaultline.connections',
        'vaultline.clipboardClearSeconds',
        'vaultline.presentationMode',
        'vaultline.requestTimeoutMs',
      ]) {
        assert.ok(['machine', 'application'].includes(properties[key]?.scope ?? ''), `${key} scope`);
        assert.ok(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(key), key);
      }
    });
  });

  describe('presentation mode', () => {
    it('shows a lasting indicator, closes open attachments, and stays on until the user turns it off', async () => {
      const api = await extensionApi();
      const item = await itemNode(api, 'alice', 'Infrastructure / Databases', fixture.items.db.label);
      const [file] = (await api.tree.getChildren(item)) as FileNode[];
      assert.equal(api.tree.getTreeItem(file!).command?.command, COMMANDS.openAttachment, 'a click opens it');
      await vscode.commands.executeCommand(COMMANDS.openAttachment, file);
      assert.equal(attachmentTabs().length, 1);
      await vscode.commands.executeCommand(COMMANDS.presentationModeOn);
      try {
        await waitFor(() => attachmentTabs().length === 0, 'the attachment tab to close');
        assert.equal(api.presentation.indicatorVisible, true);
        assert.notEqual(api.tree.getTreeItem(file!).command?.command, COMMANDS.openAttachment);
        await sleep(4500);
        assert.equal(
          api.presentation.indicatorVisible,
          true,
          'still shown after the status message would fade',
        );
        assert.equal(api.presentation.enabled, true);
      } finally {
        await vscode.commands.executeCommand(COMMANDS.presentationModeOff);
      }
      assert.equal(api.presentation.indicatorVisible, false);
    });
  });

  describe('the connect dialog', () => {
    it('keeps name, URL and login after a rejected key; its Retry starts from them, never from the key', async () => {
      const api = await extensionApi();
      const before = api.notifier.notices.length;
      assert.equal(
        await connect({ name: 'typo', url: fixture.url, login: 'alice', apiKey: WRONG_KEY }),
        undefined,
      );
      const notice = api.notifier.notices.slice(before).find((n) => n.severity === 'error');
      assert.match(
        notice?.text ?? '',
        /^typo: the vault rejected the API key/,
        'one prefix, not "Connect: typo: …"',
      );
      assert.deepEqual(notice?.actions, ['Retry']);
      const errorLines = api.log.lines.filter((line) => line.startsWith('error typo: the vault rejected'));
      assert.equal(errorLines.length, 1, 'logged once, as an error');
      try {
        const done = vscode.commands.executeCommand<boolean>(COMMANDS.connect, { retry: true });
        const prompts: string[] = [];
        for (const [step, expected] of [
          [1, 'typo'],
          [2, fixture.url],
          [3, 'alice'],
        ] as const) {
          const box = await waitFor(
            () => (api.connectFlow.active?.step === step ? api.connectFlow.active : undefined),
            `step ${step}`,
          );
          assert.equal(box.value, expected);
          assert.equal(box.totalSteps, 4);
          assert.equal(box.title, 'Connect to a Vault');
          prompts.push(box.prompt ?? '');
          await accept();
        }
        assert.match(prompts[2] ?? '', /acts for: the vault user whose folders and rights the tree shows/);
        const keyBox = await waitFor(
          () => (api.connectFlow.active?.step === 4 ? api.connectFlow.active : undefined),
          'step 4',
        );
        assert.equal(keyBox.value, '', 'the key is never kept');
        assert.equal(keyBox.password, true);
        assert.match(keyBox.prompt ?? '', /keys create --user alice/);
        keyBox.value = fixture.keys.alice;
        await accept();
        assert.equal(await done, true);
        assert.ok((await roots(api)).some((root) => root.connection === 'typo'));
      } finally {
        await disconnect('typo');
      }
    });

    it('never replaces a connection of the same name without asking', async () => {
      const api = await extensionApi();
      const before = api.notifier.notices.length;
      assert.equal(
        await connect({ name: 'alice', url: fixture.downUrl, login: 'bob', apiKey: fixture.keys.bob }),
        undefined,
      );
      assert.match(errorsSince(api, before)[0] ?? '', /a connection named "alice" exists/);
      const alice = await connectionNode(api, 'alice');
      assert.equal(alice.url, fixture.url);
      assert.equal(alice.login, 'alice');
      // In the dialog (its Retry starts from what was typed), the name is flagged at once; the
      // question comes before anything is replaced.
      const done = vscode.commands.executeCommand<boolean>(COMMANDS.connect, { retry: true });
      const box = await waitFor(() => api.connectFlow.active, 'the connect dialog');
      assert.equal(box.value, 'alice');
      const warning = await waitFor(
        () => (typeof box.validationMessage === 'object' ? box.validationMessage : undefined),
        'the warning',
      );
      assert.match(
        warning.message,
        /A connection named "alice" exists: you will be asked before it is replaced/,
      );
      assert.equal(warning.severity, vscode.InputBoxValidationSeverity.Warning);
      box.hide();
      assert.equal(await done, false);
    });

    it('asks before disconnecting and says what it did', async () => {
      const api = await extensionApi();
      await connect({ name: 'short-lived', url: fixture.url, login: 'bob', apiKey: fixture.keys.bob });
      const before = api.notifier.notices.length;
      assert.equal(await disconnect('short-lived'), true);
      assert.match(
        api.notifier.notices
          .slice(before)
          .map((n) => n.text)
          .join('\n'),
        /Disconnected "short-lived"/,
      );
    });
  });

  describe("the tree in people's words", () => {
    it('shows a personal folder as "Personal", not as its owner\'s user id', async () => {
      const api = await extensionApi();
      const admin = createVaultClient({ baseUrl: fixture.url, auth: fixture.keys.admin });
      const { id } = await admin.folders.create({
        title: String(fixture.users.alice),
        complexityLevel: 0,
        personal: true,
      });
      try {
        api.tree.refresh();
        const folders = await folderPaths(api, 'alice');
        const personal = folders.get('Personal');
        assert.ok(personal, `folders: ${[...folders.keys()].join(', ')}`);
        assert.equal(personal.folder.id, id);
        const treeItem = api.tree.getTreeItem(personal);
        assert.equal(treeItem.label, 'Personal');
        assert.match(String(treeItem.tooltip), /^Personal folder of alice\nYour right: /);
      } finally {
        await admin.folders.delete([id]);
        api.tree.refresh();
      }
    });
  });

  describe('a login with no rights', () => {
    after(async () => {
      await disconnect('dave');
    });

    it('says under its root that the login may read no folder and what to ask, and search says the same', async () => {
      const api = await extensionApi();
      const before = api.notifier.notices.length;
      assert.equal(
        await connect({ name: 'dave', url: fixture.url, login: 'dave', apiKey: fixture.keys.dave }),
        true,
      );
      const children = await api.tree.getChildren(await connectionNode(api, 'dave'));
      assert.equal(children.length, 1, 'one row, not an empty branch');
      const row = children[0] as MessageNode;
      assert.equal(row.kind, 'message');
      assert.equal(
        row.text,
        'dave may read no folder of this vault. Ask a vault administrator to give dave a role with access to a folder.',
      );
      const treeItem = api.tree.getTreeItem(row);
      assert.equal((treeItem.iconPath as vscode.ThemeIcon).id, 'warning');
      const outcome = await api.search.find('anything');
      const problem = outcome.problems.find((p) => p.connection === 'dave');
      assert.equal(problem?.text, `dave: ${row.text}`);
      assert.equal(problem?.fix.title, 'Refresh');
      const labels = api.search.entries('anything', outcome).map((entry) => entry.label);
      assert.ok(!labels.some((label) => /No item label contains/.test(label)), labels.join(' | '));
      // Said in the view and in search, never as a notification.
      assert.deepEqual(
        api.notifier.notices.slice(before).filter((n) => n.severity !== 'info'),
        [],
      );
    });
  });

  describe('rights through the core', () => {
    it('offers an NE user add and delete but not edit, and the commands agree', async () => {
      const api = await extensionApi();
      assert.equal(
        await connect({ name: 'carol', url: fixture.url, login: 'carol', apiKey: fixture.keys.carol }),
        true,
      );
      try {
        const folder = await folderNode(api, 'carol', 'Infrastructure');
        const folderItem = api.tree.getTreeItem(folder);
        assert.equal(folderItem.description, 'add and delete, no edit');
        assert.match(String(folderItem.tooltip), /\(NE\)/);
        const folderContext = String(folderItem.contextValue);
        assert.equal(offered(COMMANDS.addItem, folderContext), true, 'Add Item offered');
        assert.equal(offered(COMMANDS.deleteFolder, folderContext), true, 'Delete Folder offered');
        assert.equal(offered(COMMANDS.editFolder, folderContext), false, 'Rename Folder not offered');
        const [existing] = await itemNodes(api, folder);
        const itemContext = String(api.tree.getTreeItem(existing!).contextValue);
        assert.equal(offered(COMMANDS.deleteItem, itemContext), true, 'Delete Item offered');
        assert.equal(offered(COMMANDS.editItem, itemContext), false, 'Edit Item not offered');

        const id = await vscode.commands.executeCommand<number>(COMMANDS.addItem, folder, {
          label: 'carol-note',
          login: 'carol',
          password: generatePassword({ complexityLevel: 90 }),
          url: '',
          email: '',
          description: '',
        });
        assert.ok(Number.isInteger(id) && id > 0, `added ${id}`);
        const added = await itemNode(api, 'carol', 'Infrastructure', 'carol-note');
        const before = api.notifier.notices.length;
        assert.equal(
          await vscode.commands.executeCommand(COMMANDS.editItem, added, { field: 'login', value: 'x' }),
          undefined,
        );
        assert.match(errorsSince(api, before)[0] ?? '', /carol has no right to edit this item/);
        assert.equal(
          await vscode.commands.executeCommand(COMMANDS.deleteItem, added, { confirmed: true }),
          true,
        );
      } finally {
        await disconnect('carol');
      }
    });
  });
}

/** Tests that need a first run: no connection yet. */
export function firstRunTests(): void {
  describe('a first run', () => {
    it('search with no connection says so and offers Connect, not "no item"', async () => {
      const api = await extensionApi();
      assert.deepEqual(await roots(api), []);
      const outcome = await api.search.find('anything');
      assert.deepEqual(outcome.problems, [
        {
          connection: undefined,
          text: 'No vault is connected.',
          fix: { title: 'Connect to a Vault', command: COMMANDS.connect },
        },
      ]);
      const labels = api.search
        .entries('anything', outcome)
        .map((entry) => [entry.label, entry.description].join(' '));
      assert.deepEqual(labels, ['$(error) No vault is connected.']);
    });

    it('contributes a walkthrough whose steps are command links with done-when events', () => {
      const manifest = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as {
        contributes: {
          walkthroughs: Array<{
            steps: Array<{ id: string; description: string; completionEvents: string[] }>;
          }>;
        };
      };
      const [walkthrough] = manifest.contributes.walkthroughs;
      assert.deepEqual(
        walkthrough?.steps.map((step) => step.id),
        [
          'vaultline.connect',
          'vaultline.find',
          'vaultline.insertReference',
          'vaultline.copy',
          'vaultline.presentation',
        ],
      );
      for (const step of walkthrough?.steps ?? []) {
        const link = /\(command:(vaultline\.\w+)\)/.exec(step.description);
        assert.ok(link, `${step.id} links a command`);
        assert.ok(step.completionEvents.length > 0, `${step.id} has a done-when event`);
      }
    });
  });
}
