import * as assert from 'node:assert/strict';
import { VAULT_ERROR_CODES, VaultError } from '@vaultline/protocol';
import * as vscode from 'vscode';
import { COMMANDS } from '../../src/constants.ts';
import { userMessage } from '../../src/error-messages.ts';
import type { MessageNode } from '../../src/tree-nodes.ts';
import type { Fixture } from './fixture.ts';
import { connect, connectDown, connectionNode, disconnect, errorsSince, extensionApi } from './helpers.ts';

const WRONG_KEY = 'wrong-key-0123456789abcdef0123456789abcdef';

export function errorAndLogTests(fixture: Fixture): void {
  describe('error messages', () => {
    it('gives every error code its own one-line message without a stack trace or the key', () => {
      const seen = new Set<string>();
      for (const code of VAULT_ERROR_CODES) {
        const error = new VaultError(code, `detail ${fixture.keys.alice}`, {
          status: 400,
          serverMessage: `server says ?apikey=${fixture.keys.alice}`,
        });
        const message = userMessage(error, 'alice', (text) =>
          text.split(fixture.keys.alice).join('[REDACTED]'),
        );
        assert.match(message, /^alice: /, code);
        assert.doesNotMatch(message, /\n|\bat \S+:\d+/, code);
        assert.equal(message.includes(fixture.keys.alice), false, code);
        seen.add(message.replace(/ \(.*\)$/, ''));
      }
      assert.equal(seen.size, VAULT_ERROR_CODES.length);
      assert.match(userMessage(new Error('boom\n    at x.js:1:1'), 'bob'), /^bob: cannot reach the vault/);
    });
  });

  describe('errors', () => {
    after(async () => {
      for (const name of ['wrong', 'revoked', 'down']) await disconnect(name);
    });

    it('refuses to connect with a wrong key and says the key was rejected', async () => {
      const api = await extensionApi();
      const before = api.notifier.notices.length;
      assert.equal(
        await connect({ name: 'wrong', url: fixture.url, login: 'alice', apiKey: WRONG_KEY }),
        undefined,
      );
      const [message] = errorsSince(api, before);
      assert.match(message ?? '', /rejected the API key/);
      assert.equal((message ?? '').includes(WRONG_KEY), false);
    });

    it('refuses to connect with a revoked key and says it was revoked, not mistyped', async () => {
      const api = await extensionApi();
      const before = api.notifier.notices.length;
      assert.equal(
        await connect({ name: 'revoked', url: fixture.url, login: 'alice', apiKey: fixture.keys.revoked }),
        undefined,
      );
      const [message] = errorsSince(api, before);
      assert.match(
        message ?? '',
        /^revoked: this API key was revoked\. Ask your vault administrator for a new key/,
      );
      assert.doesNotMatch(message ?? '', /with a valid key/);
      assert.equal((message ?? '').includes(fixture.keys.revoked), false);
    });

    it('shows an error node whose fix is Connect (prefilled) for a stored wrong key', async () => {
      const api = await extensionApi();
      assert.equal(
        await connect({
          name: 'wrong',
          url: fixture.url,
          login: 'alice',
          apiKey: WRONG_KEY,
          saveUnverified: true,
        }),
        true,
      );
      const [node] = (await api.tree.getChildren(await connectionNode(api, 'wrong'))) as MessageNode[];
      assert.equal(node?.kind, 'message');
      assert.match(node.text, /^wrong: the vault rejected the API key/);
      const treeItem = api.tree.getTreeItem(node);
      assert.equal(treeItem.command?.command, COMMANDS.connect);
      assert.deepEqual(treeItem.command?.arguments, [{ reconnect: 'wrong' }]);
      assert.equal(treeItem.contextValue, 'error connect');
      assert.doesNotMatch(node.text, /\n|\bat \S+:\d+/, 'no stack trace');
    });

    it('shows "cannot reach the vault" when the server is down, and retries', async () => {
      const api = await extensionApi();
      await connectDown(fixture);
      const [node] = (await api.tree.getChildren(await connectionNode(api, 'down'))) as MessageNode[];
      assert.equal(node?.kind, 'message');
      assert.equal(node.text, 'down: cannot reach the vault. Is the server running and the URL right?');
      await vscode.commands.executeCommand(COMMANDS.retry, node);
      const [again] = (await api.tree.getChildren(await connectionNode(api, 'down'))) as MessageNode[];
      assert.notEqual(again, node, 'reloaded, not cached');
      assert.equal(again?.text, node.text);
    });

    it('rejects malformed connection input with a clear message and stores nothing', async () => {
      const api = await extensionApi();
      for (const url of ['javascript:alert(1)', 'not a url', `${fixture.url}/?apikey=leak`]) {
        const before = api.notifier.notices.length;
        assert.equal(
          await connect({ name: 'bad', url, login: 'alice', apiKey: fixture.keys.alice }),
          undefined,
        );
        assert.match(
          errorsSince(api, before)[0] ?? '',
          /^bad: (Expected the vault's base URL|Expected an http:\/\/ or https:\/\/ base URL|The base URL cannot carry a query)/,
        );
      }
      assert.equal(
        (await api.tree.getChildren()).some(
          (node) => node.kind === 'connection' && node.connection === 'bad',
        ),
        false,
      );
    });
  });

  describe('the Output channel', () => {
    it('is a LogOutputChannel: lines carry their level, the default level hides debug detail', async () => {
      const api = await extensionApi();
      assert.equal(api.log.level, vscode.LogLevel.Info);
      assert.ok(api.log.lines.some((line) => /^info \[alice\] GET readUserFolders 200 /.test(line)));
      assert.ok(api.log.lines.some((line) => /^warn \[(wrong|down)\] GET readUserFolders /.test(line)));
      assert.ok(
        api.log.lines.some((line) => /^error Connect: bad: /.test(line) || /^error bad: /.test(line)),
      );
      // Every command logs "command <id>" at debug; at the default level none of it is written.
      assert.ok(api.log.lines.every((line) => /^(info|warn|error) /.test(line)));
      assert.ok(!api.log.lines.some((line) => line.includes('command vaultline.')));
    });

    it('logs requests with no API key and no password', async () => {
      const api = await extensionApi();
      const text = api.log.lines.join('\n');
      assert.match(text, /readUserFolders 200/);
      assert.match(text, /\[REDACTED\]/);
      for (const key of [fixture.keys.admin, fixture.keys.alice, fixture.keys.bob, WRONG_KEY]) {
        assert.equal(text.includes(key), false, 'a key leaked into the log');
        assert.equal(text.includes(encodeURIComponent(key)), false, 'an encoded key leaked into the log');
      }
      for (const item of Object.values(fixture.items)) {
        assert.equal(
          text.includes(item.password),
          false,
          `the password of ${item.label} leaked into the log`,
        );
        const encoded = Buffer.from(item.password).toString('base64url').slice(0, -2);
        assert.equal(
          text.includes(encoded),
          false,
          `the encoded password of ${item.label} leaked into the log`,
        );
      }
    });
  });
}
