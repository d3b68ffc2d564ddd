import * as assert from 'node:assert/strict';
import { createVaultClient } from '@vaultline/protocol';
import * as vscode from 'vscode';
import { COMMANDS } from '../../src/constants.ts';
import type { Fixture } from './fixture.ts';
import { errorsSince, extensionApi, itemNode } from './helpers.ts';

interface Case {
  name: string;
  command: string;
  args: unknown[];
  message: RegExp;
}

export function malformedInputTests(fixture: Fixture): void {
  describe('malformed, hostile and unicode command input', () => {
    const ref = (itemId: unknown, connection: unknown = 'alice') => ({ connection, itemId });
    const cases: Case[] = [
      {
        name: 'a negative item id',
        command: COMMANDS.insertLogin,
        args: [ref(-1)],
        message: /choose an item/,
      },
      {
        name: 'a fractional item id',
        command: COMMANDS.copyPassword,
        args: [ref(1.5)],
        message: /choose an item/,
      },
      {
        name: 'an item id as text',
        command: COMMANDS.editItem,
        args: [ref('1; DROP')],
        message: /choose an item/,
      },
      {
        name: 'an unknown connection',
        command: COMMANDS.copyLogin,
        args: [ref(1, 'nope ✗')],
        message: /no connection named "nope ✗"/,
      },
      {
        name: 'an unknown field',
        command: COMMANDS.insertField,
        args: [ref(1), 'secret'],
        message: /expected one of login, password, url, email, received "secret"/,
      },
      {
        name: 'an item that does not exist',
        command: COMMANDS.copyField,
        args: [ref(987654), 'login'],
        message: /not found in the vault/,
      },
      {
        name: 'a folder command on an item',
        command: COMMANDS.addItem,
        args: [ref(1), { label: 'x' }],
        message: /choose a folder/,
      },
      {
        name: 'an attachment command on nothing',
        command: COMMANDS.saveAttachment,
        args: [undefined],
        message: /choose an attachment/,
      },
    ];
    for (const testCase of cases) {
      it(`answers ${testCase.name} with a clear message`, async () => {
        const api = await extensionApi();
        const before = api.notifier.notices.length;
        assert.equal(await vscode.commands.executeCommand(testCase.command, ...testCase.args), undefined);
        const [message] = errorsSince(api, before);
        assert.match(message ?? '', testCase.message);
        assert.doesNotMatch(message ?? '', /\n|\bat \S+:\d+/);
      });
    }

    it('refuses an empty label or a non-field on edit and loses nothing', async () => {
      const api = await extensionApi();
      const node = await itemNode(api, 'alice', 'Infrastructure', fixture.items.ci.label);
      const before = api.notifier.notices.length;
      assert.equal(
        await vscode.commands.executeCommand(COMMANDS.editItem, node, { field: 'label', value: '  ' }),
        undefined,
      );
      assert.equal(
        await vscode.commands.executeCommand(COMMANDS.editItem, node, { field: 'pw', value: 'x' }),
        undefined,
      );
      const [empty, unknown] = errorsSince(api, before);
      assert.match(empty ?? '', /the label cannot be empty/);
      assert.match(unknown ?? '', /expected one of label, login, password, url, email, description/);
      const stored = await createVaultClient({ baseUrl: fixture.url, auth: fixture.keys.alice }).items.get(
        fixture.items.ci.id,
      );
      assert.equal(stored.label, fixture.items.ci.label);
      assert.equal(stored.password, fixture.items.ci.password);
    });

    it('stores unicode and markup-looking values verbatim or refuses them plainly, and loses nothing', async () => {
      const api = await extensionApi();
      const client = createVaultClient({ baseUrl: fixture.url, auth: fixture.keys.alice });
      const node = await itemNode(api, 'alice', 'Infrastructure', fixture.items.ci.label);
      for (const value of ['Zoë — ünïcode ✓ 🔑', '<b>bold</b>', 'a;b/c?d=e&f%2F\'"']) {
        const before = api.notifier.notices.length;
        const done = await vscode.commands.executeCommand(COMMANDS.editItem, node, {
          field: 'description',
          value,
        });
        const stored = await client.items.get(fixture.items.ci.id);
        if (done === true) assert.equal(stored.description, value);
        else assert.match(errorsSince(api, before)[0] ?? '', /^Edit item: the vault refused the request/);
        assert.equal(stored.password, fixture.items.ci.password, 'the password survives');
        assert.equal(stored.login, fixture.items.ci.login, 'the login survives');
      }
    });
  });
}
