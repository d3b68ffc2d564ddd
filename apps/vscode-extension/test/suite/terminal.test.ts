import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS } from '../../src/constants.ts';
import { envName } from '../../src/vault-terminal.ts';
import type { Fixture } from './fixture.ts';
import { errorsSince, extensionApi } from './helpers.ts';

export function terminalTests(fixture: Fixture): void {
  describe('run with vault values', () => {
    it('derives portable variable names from labels', () => {
      assert.equal(envName('db-prod', 'password'), 'DB_PROD_PASSWORD');
      assert.equal(envName('café wifi', 'login'), 'CAFE_WIFI_LOGIN');
      assert.equal(envName('9 lives', 'url'), '_9_LIVES_URL');
      assert.equal(envName('🔑', 'email'), 'ITEM_EMAIL');
    });

    it('opens a transient terminal whose environment holds the chosen values', async () => {
      const ref = { connection: 'alice', itemId: fixture.items.db.id, label: fixture.items.db.label };
      const terminal = await vscode.commands.executeCommand<vscode.Terminal>(
        COMMANDS.runWithValues,
        undefined,
        undefined,
        [
          { ref, field: 'password' },
          { ref, field: 'login', name: 'PGUSER' },
        ],
      );
      try {
        const options = terminal.creationOptions as vscode.TerminalOptions;
        assert.deepEqual(options.env, {
          DB_PROD_PASSWORD: fixture.items.db.password,
          PGUSER: fixture.items.db.login,
        });
        assert.equal(options.isTransient, true);
      } finally {
        terminal.dispose();
      }
    });

    it('refuses an invalid variable name', async () => {
      const api = await extensionApi();
      const before = api.notifier.notices.length;
      const ref = { connection: 'alice', itemId: fixture.items.db.id };
      const result = await vscode.commands.executeCommand(COMMANDS.runWithValues, undefined, undefined, [
        { ref, field: 'password', name: 'BAD NAME; rm -rf' },
      ]);
      assert.equal(result, undefined);
      assert.match(errorsSince(api, before)[0] ?? '', /is not a valid variable name/);
    });
  });
}
