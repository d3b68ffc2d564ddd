import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { searchActions } from '../../src/commands/search.ts';
import { COMMANDS } from '../../src/constants.ts';
import type { MessageNode, VaultNode } from '../../src/tree-nodes.ts';
import type { Fixture } from './fixture.ts';
import {
  connect,
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
  setConfig,
  waitFor,
  waitForHover,
} from './helpers.ts';
import { type Target, teampass3Control } from './target.ts';

const accept = () => vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');

function label(node: VaultNode): string {
  switch (node.kind) {
    case 'folder':
      return node.folder.title;
    case 'item':
      return node.item.label;
    case 'message':
      return node.text;
    case 'file':
      return node.file.name;
    default:
      return node.connection;
  }
}

/**
 * What only TeamPass 3 shows, against the TeamPass 3 fake over HTTP: connecting with a password
 * (the dialog detects that the vault signs each user in), its refusals said plainly, one sign-in
 * per token lifetime (kept in SecretStorage across reloads, once again when it expired), one-time
 * codes, tags, no attachments said once, rights folded with the user's API permissions and the
 * server's own 403, a tree 20 folders deep, labels full of entities and emoji.
 */
export function teampass3OnlyTests(fixture: Fixture, target: Target): void {
  const tp3 = fixture.teampass3;
  const control = <T = unknown>(op: string, ...args: unknown[]) => teampass3Control<T>(tp3, op, ...args);
  const admin = () => target.client();
  const { alice, bob } = target;
  const { ci, web } = tp3.items;
  /** Every secret of the fake's users: none may reach a message, a notice or the log. */
  const userSecrets = Object.values(tp3.users).flatMap((user) => [user.password, user.apiKey]);
  const leaks = async (texts: readonly string[]): Promise<string[]> => {
    const tokens = await control<string[]>('tokens');
    return [...userSecrets, ...tokens].filter((secret) => texts.some((text) => text.includes(secret)));
  };

  describe('what only TeamPass 3 shows', () => {
    // The connection the dialog test makes serves the tree tests too; the next checks expect it gone.
    after(() => disconnect('tp3-erin'));

    describe('TeamPass 3: connecting', () => {
      after(async () => {
        for (const name of ['tp3-wrong', 'tp3-off', 'tp3-keyonly']) await disconnect(name);
        await setConfig('requestTimeoutMs', undefined);
      });

      it('detects that the vault signs each user in, asks for the password and API key, and signs in once', async () => {
        const api = await extensionApi();
        await control('resetCounters');
        const done = vscode.commands.executeCommand<boolean>(COMMANDS.connect);
        const steps: string[] = [];
        const prompts: string[] = [];
        const type = async (step: number, value: string) => {
          const box = await waitFor(
            () => (api.connectFlow.active?.step === step ? api.connectFlow.active : undefined),
            `step ${step}`,
            20_000,
          );
          steps.push(`${box.step}/${box.totalSteps}`);
          prompts.push(box.prompt ?? '');
          if (step >= 5) assert.equal(box.password, true, `step ${step} hides what is typed`);
          box.value = value;
          await accept();
        };
        await type(1, 'tp3-erin');
        await type(2, tp3.url);
        await type(3, 'erin');
        const pick = await waitFor(() => api.connectFlow.activePick, 'the sign-in method');
        steps.push(`${pick.step}/${pick.totalSteps}`);
        assert.deepEqual(
          pick.items.map((item) => item.label),
          ['$(key) Password and API key', '$(shield) Personal access token'],
        );
        await waitFor(() => pick.activeItems.length > 0, 'the first choice to be active');
        await accept();
        await type(5, tp3.users.erin.password);
        await type(6, tp3.users.erin.apiKey);
        assert.equal(await done, true);
        // The URL was detected after step 2: from then on the steps count six.
        assert.deepEqual(steps, ['1/4', '2/4', '3/6', '4/6', '5/6', '6/6']);
        assert.match(prompts[2] ?? '', /every request runs as this user/);
        assert.match(prompts[3] ?? '', /erin's password/);
        assert.match(prompts[4] ?? '', /erin's personal API key/);
        const stored = vscode.workspace
          .getConfiguration('vaultline')
          .get<{ name: string; dialect?: string }[]>('connections')
          ?.find((entry) => entry.name === 'tp3-erin');
        assert.equal(stored?.dialect, 'teampass3', 'the detected dialect is stored with the connection');
        assert.equal(JSON.stringify(stored).includes(tp3.users.erin.password), false);

        // The check's sign-in is the connection's: the tree loads on the same token.
        const folders = await folderPaths(api, 'tp3-erin');
        assert.ok(folders.has(tp3.levels.join(' / ')));
        assert.equal(await control('signIns', 'erin'), 1);

        // A reload (new clients from the stored settings and secrets) reuses the token kept in
        // SecretStorage: no sign-in.
        await setConfig('requestTimeoutMs', 15_000);
        api.tree.refresh();
        assert.ok((await folderPaths(api, 'tp3-erin')).has(tp3.levels.join(' / ')));
        assert.equal(await control('signIns', 'erin'), 1, 'a reload signed in again');
        await setConfig('requestTimeoutMs', undefined);
      });

      it('says a wrong password plainly, without it, and keeps no connection', async () => {
        const api = await extensionApi();
        const before = api.notifier.notices.length;
        const wrong = `${tp3.users.erin.password}-wrong`;
        assert.equal(
          await connect({
            name: 'tp3-wrong',
            url: tp3.url,
            login: 'erin',
            password: wrong,
            apiKey: tp3.users.erin.apiKey,
          }),
          undefined,
        );
        const [message] = errorsSince(api, before);
        assert.match(
          message ?? '',
          /^tp3-wrong: the vault refused to sign in\. Check the login, password and API key .*The vault said: "Login failed\. \(Invalid credentials\)"\.$/,
        );
        assert.equal((message ?? '').includes(wrong), false);
        assert.deepEqual(await leaks([message ?? '']), []);
        assert.equal(
          api.tree.model.connectionList().some((node) => node.connection === 'tp3-wrong'),
          false,
        );
      });

      it('says a locked sign-in is locked for a while, and an http:// URL that needs HTTPS, in their own words', async () => {
        const api = await extensionApi();
        const args = {
          url: tp3.url,
          login: 'erin',
          password: tp3.users.erin.password,
          apiKey: tp3.users.erin.apiKey,
        };
        await control('configure', { failedSignInsPerLogin: 1, lockMinutes: 1 });
        try {
          // One wrong password locks erin's login; then even the right one is refused, locked.
          const before = api.notifier.notices.length;
          assert.equal(
            await connect({ ...args, name: 'tp3-lock', password: `${args.password}-wrong` }),
            undefined,
          );
          assert.equal(await connect({ ...args, name: 'tp3-lock' }), undefined);
          const locked = errorsSince(api, before).at(-1) ?? '';
          assert.match(locked, /^tp3-lock: the vault locked signing in for a while after failed attempts/);
          assert.match(locked, /try again later, or ask your vault administrator to unlock it/);
          assert.match(locked, /The vault said: "Login failed\. \(Account temporarily locked\)"/);
          assert.equal(locked.includes('Check the login'), false);
        } finally {
          await control('configure', { failedSignInsPerLogin: 0 });
          await control('advanceClock', 61_000);
        }
        await control('configure', { requireHttps: true });
        try {
          const before = api.notifier.notices.length;
          assert.equal(await connect({ ...args, name: 'tp3-https' }), undefined);
          const https = errorsSince(api, before).at(-1) ?? '';
          assert.match(https, /^tp3-https: the vault accepts API requests over HTTPS only\./);
          assert.match(https, /HTTPS is required for API requests/);
          assert.equal(https.includes('right'), false);
        } finally {
          await control('configure', { requireHttps: false });
        }
      });

      it("says when the user's API access is off, and when the site's API is", async () => {
        const api = await extensionApi();
        const args = {
          name: 'tp3-off',
          url: tp3.url,
          login: 'dave',
          password: tp3.users.dave.password,
          apiKey: tp3.users.dave.apiKey,
        };
        await control('updateUser', 'dave', { apiEnabled: false });
        try {
          const before = api.notifier.notices.length;
          assert.equal(await connect(args), undefined);
          // TeamPass answers a user without API access as it answers a wrong password: both are said.
          assert.match(errorsSince(api, before)[0] ?? '', /may use the API/);
        } finally {
          await control('updateUser', 'dave', { apiEnabled: true });
        }
        await control('configure', { api: false });
        try {
          const before = api.notifier.notices.length;
          assert.equal(await connect(args), undefined);
          assert.match(
            errorsSince(api, before)[0] ?? '',
            /^tp3-off: the vault's API is switched off\. Ask your vault administrator\. The vault said: "API usage is not allowed"\.$/,
          );
        } finally {
          await control('configure', { api: true });
        }
      });

      it('asks for the password when a script gives only the API key', async () => {
        const api = await extensionApi();
        const before = api.notifier.notices.length;
        assert.equal(
          await connect({ name: 'tp3-keyonly', url: tp3.url, login: 'erin', apiKey: tp3.users.erin.apiKey }),
          undefined,
        );
        // The core's own sentence: what TeamPass 3 signs in with, and what is missing.
        assert.match(
          errorsSince(api, before)[0] ?? '',
          /^tp3-keyonly: .*signs in with a login, password and the user's API key, or a login and a personal access token: missing a password/,
        );
      });

      it('says how long the vault asks to wait when it limits the rate', async () => {
        const api = await extensionApi();
        // The fake's clock stands still one second into a minute: the limit asks to wait 59 s,
        // longer than the client waits by itself.
        await control('configure', { rateLimitPerMinute: 1 });
        try {
          // One request a minute gets through (whichever connection the view reloads first).
          let row: MessageNode | undefined;
          for (let i = 0; i < 5 && row?.kind !== 'message'; i++) {
            api.tree.refresh();
            [row] = (await api.tree.getChildren(await connectionNode(api, 'tp3-erin'))) as MessageNode[];
          }
          assert.equal(row?.kind, 'message');
          const wait =
            /^tp3-erin: too many requests\. The vault asks to wait (\d+) seconds; retry then\./.exec(
              row.text,
            );
          assert.ok(wait, row.text);
          assert.ok(Number(wait[1]) > 30 && Number(wait[1]) <= 60, row.text);
        } finally {
          await control('configure', { rateLimitPerMinute: 0 });
          api.tree.refresh();
        }
      });
    });

    describe('TeamPass 3: the tree', () => {
      before(async function () {
        this.timeout(30_000);
        const args = {
          name: 'tp3-dave',
          url: tp3.url,
          login: 'dave',
          password: tp3.users.dave.password,
          apiKey: tp3.users.dave.apiKey,
        };
        if ((await connect(args)) !== true) throw new Error('dave did not connect');
      });
      after(() => disconnect('tp3-dave'));

      it('says once, under the root, that the vault keeps no attachments, and offers none per item', async () => {
        const api = await extensionApi();
        const children = await api.tree.getChildren(await connectionNode(api, alice));
        const notes = children.filter((node) => node.kind === 'message');
        assert.deepEqual(notes.map(label), ['No attachments on this vault']);
        assert.equal(api.tree.getTreeItem(notes[0]!).contextValue, 'note');
        assert.match(String(api.tree.getTreeItem(notes[0]!).tooltip), /keeps no attachments/);
        const folder = await folderNode(api, alice, 'Infrastructure');
        const rows = await api.tree.getChildren(folder);
        assert.equal(
          rows.some((node) => node.kind === 'message'),
          false,
          'no "No attachments" row among the items',
        );
        const item = await itemNode(api, alice, 'Infrastructure', ci.label);
        const treeItem = api.tree.getTreeItem(item);
        assert.equal(treeItem.collapsibleState, vscode.TreeItemCollapsibleState.None);
        assert.equal(offered(COMMANDS.uploadAttachment, String(treeItem.contextValue)), false);
        assert.equal(offered(COMMANDS.editItem, String(treeItem.contextValue)), true);
      });

      it('shows the tags and the one-time code in the tooltip, and offers Copy One-Time Code only there', async () => {
        const api = await extensionApi();
        const withCode = await itemNode(api, alice, 'Infrastructure', ci.label);
        const tooltip = api.tree.itemTooltip(withCode);
        assert.match(tooltip, new RegExp(`Tags: ${tp3.otp.tags.join(', ')}`));
        assert.match(tooltip, /One-time code: yes/);
        assert.equal(tooltip.includes(ci.password), false);
        assert.equal(
          offered(COMMANDS.copyOneTimeCode, String(api.tree.getTreeItem(withCode).contextValue)),
          true,
        );
        const without = await itemNode(api, alice, 'Infrastructure', web.label);
        assert.doesNotMatch(api.tree.itemTooltip(without), /Tags:|One-time code/);
        assert.equal(
          offered(COMMANDS.copyOneTimeCode, String(api.tree.getTreeItem(without).contextValue)),
          false,
        );
        const db = await itemNode(api, alice, 'Infrastructure / Databases', tp3.items.db.label);
        assert.match(api.tree.itemTooltip(db), /Tags: database, prod/);
      });

      it('nests a tree 20 folders deep and shows the item at the bottom', async () => {
        const api = await extensionApi();
        const path = tp3.levels.join(' / ');
        const folders = await folderPaths(api, 'tp3-erin');
        for (let depth = 1; depth <= tp3.levels.length; depth++)
          assert.ok(folders.has(tp3.levels.slice(0, depth).join(' / ')), `level ${depth}`);
        const deepest = folders.get(path)!;
        assert.equal(deepest.folder.id, tp3.folders.deepest);
        const [item] = await itemNodes(api, deepest);
        assert.equal(item?.item.label, tp3.deep.label);
        assert.deepEqual(item?.item.path, tp3.levels);
        assert.match(api.tree.itemTooltip(item!), new RegExp(`Path: ${tp3.levels.join(' / ')}`));
      });

      it('shows labels full of entities and emoji as they were typed, and finds them', async () => {
        const api = await extensionApi();
        const folder = await folderNode(api, 'tp3-erin', tp3.hostile.folder);
        assert.equal(api.tree.getTreeItem(folder).label, tp3.hostile.folder);
        const [item] = await itemNodes(api, folder);
        assert.equal(item?.item.label, tp3.hostile.label);
        const treeItem = api.tree.getTreeItem(item!);
        assert.equal(treeItem.label, tp3.hostile.label);
        assert.equal(treeItem.description, tp3.hostile.login);
        for (const query of ['Jerry', '😀🎉', '"x"']) {
          const { hits, problems } = await api.search.find(query);
          assert.deepEqual(problems, [], query);
          assert.deepEqual(
            hits.map((hit) => [hit.connection, hit.item.label, hit.item.path.join(' / ')]),
            [['tp3-erin', tp3.hostile.label, tp3.hostile.folder]],
            query,
          );
        }
      });

      it("hides what a read-only user may not do, and folds the user's API permissions into the rights", async () => {
        const api = await extensionApi();
        const bobFolder = await folderNode(api, bob, 'Infrastructure');
        const bobItem = await itemNode(api, bob, 'Infrastructure', web.label);
        assert.equal(api.tree.getTreeItem(bobFolder).contextValue, 'folder');
        assert.equal(api.tree.getTreeItem(bobFolder).description, 'read only');
        const bobItemContext = String(api.tree.getTreeItem(bobItem).contextValue);
        for (const command of [COMMANDS.editItem, COMMANDS.deleteItem, COMMANDS.uploadAttachment])
          assert.equal(offered(command, bobItemContext), false, `${command} offered to bob`);
        for (const command of [
          COMMANDS.addItem,
          COMMANDS.addFolder,
          COMMANDS.editFolder,
          COMMANDS.deleteFolder,
        ])
          assert.equal(offered(command, 'folder'), false, `${command} offered on bob's folder`);

        // dave's roles give him full access, but the API may not update or delete for him.
        const daveFolder = await folderNode(api, 'tp3-dave', 'Infrastructure');
        assert.equal(daveFolder.folder.accessType, 'NDNE');
        const daveContext = String(api.tree.getTreeItem(daveFolder).contextValue);
        assert.equal(daveContext, 'folder add');
        assert.equal(offered(COMMANDS.addItem, daveContext), true);
        assert.equal(offered(COMMANDS.editFolder, daveContext), false);
        const daveItem = String(
          api.tree.getTreeItem(await itemNode(api, 'tp3-dave', 'Infrastructure', web.label)).contextValue,
        );
        assert.equal(offered(COMMANDS.editItem, daveItem), false);
        assert.equal(offered(COMMANDS.deleteItem, daveItem), false);
      });

      it("shows the server's own refusal (403) plainly when the user's API permissions changed since sign-in", async () => {
        const api = await extensionApi();
        const { id } = await admin().items.create({
          label: 'doomed-403',
          password: 'D00med-pw-2026!',
          folderId: tp3.folders.infra,
        });
        try {
          api.tree.refresh();
          const node = await itemNode(api, alice, 'Infrastructure', 'doomed-403');
          assert.equal(offered(COMMANDS.deleteItem, String(api.tree.getTreeItem(node).contextValue)), true);
          await control('setApiFlags', 'alice', { delete: false });
          const before = api.notifier.notices.length;
          assert.equal(
            await vscode.commands.executeCommand(COMMANDS.deleteItem, node, { confirmed: true }),
            undefined,
          );
          const [message] = errorsSince(api, before);
          assert.match(
            message ?? '',
            /^Delete item: you have no right to do this in the vault\. The vault said: ".+"\.$/,
          );
          assert.deepEqual(await leaks([message ?? '']), []);
          assert.equal((await admin().items.get(id)).label, 'doomed-403', 'the item is still there');
        } finally {
          await control('setApiFlags', 'alice', { delete: true });
          await admin().items.delete([id]);
          api.tree.refresh();
        }
      });
    });

    describe('TeamPass 3: one-time codes', () => {
      afterEach(async () => {
        await setConfig('clipboardClearSeconds', undefined);
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      });

      it('copies the current one-time code, says how long it stays valid, and clears it', async () => {
        const api = await extensionApi();
        await setConfig('clipboardClearSeconds', 1);
        const node = await itemNode(api, alice, 'Infrastructure', ci.label);
        const expected = await admin().items.otp(ci.id);
        const notices = api.notifier.notices.length;
        const mark = logMark(api);
        const result = await vscode.commands.executeCommand<{
          cleared: Promise<boolean>;
          secondsLeft: number;
        }>(COMMANDS.copyOneTimeCode, node);
        assert.match(expected.code, /^\d{6}$/);
        assert.equal(await vscode.env.clipboard.readText(), expected.code);
        // The fake's clock stands still: the code and its seconds are those the tests' client read.
        assert.equal(result.secondsLeft, expected.secondsLeft);
        const said = api.notifier.notices.slice(notices).map((notice) => notice.text);
        assert.deepEqual(said, [
          `Vaultline: copied the one-time code of "${ci.label}", valid ${expected.secondsLeft} more seconds`,
        ]);
        assert.match(api.clipboard.statusText, /One-time code clears in \ds/);
        assert.equal(await result.cleared, true);
        assert.equal(await vscode.env.clipboard.readText(), '');
        const written = [...said, ...logSince(api, mark)];
        assert.ok(
          written.every((text) => !text.includes(expected.code)),
          'the code is in a message or the log',
        );
      });

      it('copies it while presenting too, showing only the seconds', async () => {
        const api = await extensionApi();
        const node = await itemNode(api, alice, 'Infrastructure', ci.label);
        await api.presentation.toggle(true);
        try {
          const notices = api.notifier.notices.length;
          const result = await vscode.commands.executeCommand<{ cleared: Promise<boolean> }>(
            COMMANDS.copyOneTimeCode,
            node,
            0.5,
          );
          const code = await vscode.env.clipboard.readText();
          assert.match(code, /^\d{6}$/);
          assert.deepEqual(errorsSince(api, notices), []);
          assert.ok(api.notifier.notices.slice(notices).every((notice) => !notice.text.includes(code)));
          assert.equal(await result.cleared, true);
        } finally {
          await api.presentation.toggle(false);
        }
      });

      it('says plainly that an item holds no one-time code', async () => {
        const api = await extensionApi();
        const before = api.notifier.notices.length;
        assert.equal(
          await vscode.commands.executeCommand(COMMANDS.copyOneTimeCode, {
            connection: alice,
            itemId: web.id,
            label: web.label,
          }),
          undefined,
        );
        assert.match(
          errorsSince(api, before)[0] ?? '',
          /^Copy one-time code: "web-frontend" has no one-time code, or alice may not read it\. The vault said: "OTP not configured/,
        );
      });

      it('offers Copy One-Time Code in search for an item that holds one', async () => {
        const api = await extensionApi();
        const { hits } = await api.search.find(ci.label);
        const hit = hits.find((entry) => entry.connection === alice);
        assert.equal(hit?.item.otp, true);
        const withCode = searchActions({ connection: alice, itemId: ci.id, otp: true }, false);
        assert.ok(withCode.some((action) => action.command === COMMANDS.copyOneTimeCode));
        const without = searchActions({ connection: alice, itemId: web.id, otp: false }, false);
        assert.equal(
          without.some((action) => action.command === COMMANDS.copyOneTimeCode),
          false,
        );
      });

      it('resolves vaultline://<id>/otp: the hover says it is a one-time code and reads none; copy reads it', async () => {
        const api = await extensionApi();
        const document = await vscode.workspace.openTextDocument({
          language: 'properties',
          content: `TOTP=vaultline://${ci.id}/otp\nNONE=vaultline://${web.id}/otp\n`,
        });
        await vscode.window.showTextDocument(document);
        const diagnostics = await waitFor(() => {
          const found = vscode.languages
            .getDiagnostics(document.uri)
            .filter((diagnostic) => String(diagnostic.code).startsWith('reference-'));
          return found.length > 0 ? found : undefined;
        }, 'the warning on the item without a code');
        assert.deepEqual(
          diagnostics.map((diagnostic) => [diagnostic.range.start.line, diagnostic.code]),
          [[1, 'reference-not_found']],
        );
        assert.match(diagnostics[0]!.message, /has no one-time code/);

        const requests = await control<number>('requestCount');
        const text = await waitForHover(document.uri, new vscode.Position(0, 12));
        const code = (await admin().items.otp(ci.id)).code;
        assert.match(text, new RegExp(ci.label));
        assert.match(text, /one-time code \\?\(TOTP\\?\)/);
        assert.equal(text.includes(code), false, 'the hover shows the code unasked');
        const since = await control<{ url: string; login?: string }[]>('requests', requests);
        assert.equal(
          since.some((request) => request.url.includes('/item/getOtp') && request.login === 'alice'),
          false,
          'the hover read a one-time code',
        );

        const notices = api.notifier.notices.length;
        const result = await vscode.commands.executeCommand<{ cleared: Promise<boolean> }>(
          COMMANDS.copyReferencedValue,
          `vaultline://${ci.id}/otp`,
          0.5,
        );
        assert.equal(await vscode.env.clipboard.readText(), code);
        assert.match(
          api.notifier.notices
            .slice(notices)
            .map((notice) => notice.text)
            .join('\n'),
          /copied the one-time code of "ci-runner", valid \d+ more seconds/,
        );
        assert.equal(await result.cleared, true);
      });
    });

    describe('TeamPass 3: sessions', () => {
      it('signs in once per token lifetime, and once again when the token expired', async () => {
        const api = await extensionApi();
        await control('resetCounters');
        // Everything the view does on a live token: no sign-in.
        api.tree.refresh();
        await itemNodes(api, await folderNode(api, alice, 'Infrastructure'));
        await api.search.find('db-');
        const copied = await vscode.commands.executeCommand<{ cleared: Promise<boolean> }>(
          COMMANDS.copyField,
          await itemNode(api, alice, 'Infrastructure', web.label),
          'login',
          0.5,
        );
        await copied.cleared;
        assert.equal(await control('signIns', 'alice'), 0);

        // The token runs out (TeamPass's clock moves past its exp; ours does not know): the first
        // call answered 401 signs in again, once, and the view goes on.
        await control('advanceClock', 61 * 60_000);
        api.tree.refresh();
        const items = await itemNodes(api, await folderNode(api, alice, 'Infrastructure'));
        assert.ok(items.some((node) => node.item.id === web.id));
        await itemNodes(api, await folderNode(api, alice, 'Infrastructure / Databases'));
        await api.search.find('stripe');
        assert.equal(await control('signIns', 'alice'), 1);
        assert.deepEqual(
          await leaks([...api.log.lines, ...api.notifier.notices.map((notice) => notice.text)]),
          [],
        );
      });
    });

    describe('TeamPass 3 through a Vaultline server in upstream mode', () => {
      const upstream = tp3.upstream;
      const name = 'tp3-upstream';
      after(() => disconnect(name));

      it("connects with the server's machine key and lists the key's scope, nothing outside it", async function () {
        this.timeout(60_000);
        assert.equal(
          await connect({ name, url: upstream.url, login: upstream.login, apiKey: upstream.apiKey }),
          true,
        );
        const api = await extensionApi();
        const folders = await folderPaths(api, name);
        // alice reads Payments on TeamPass 3; the key reaches Infrastructure and its subfolders.
        assert.deepEqual([...folders.keys()].sort(), ['Infrastructure', 'Infrastructure / Databases']);
        const infra = (await itemNodes(api, folders.get('Infrastructure')!)).map((node) => node.item.label);
        assert.ok(infra.includes(web.label), `${web.label} in ${infra.join(', ')}`);
        assert.ok(infra.includes(ci.label), `${ci.label} in ${infra.join(', ')}`);
        const databases = (await itemNodes(api, folders.get('Infrastructure / Databases')!)).map(
          (node) => node.item.label,
        );
        assert.ok(databases.includes(tp3.items.db.label), `${tp3.items.db.label} in ${databases.join(', ')}`);
        assert.equal([...infra, ...databases].includes(tp3.items.stripe.label), false, 'nothing of Payments');
        const texts = [...api.log.lines, ...api.notifier.notices.map((notice) => notice.text)];
        assert.deepEqual(await leaks(texts), []);
        assert.equal(
          texts.some((text) => text.includes(upstream.apiKey)),
          false,
        );
      });
    });
  });
}
