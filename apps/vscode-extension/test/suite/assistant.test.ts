import * as assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as vscode from 'vscode';
import { EXTENSION_ID } from '../../src/constants.ts';
import type { Fixture } from './fixture.ts';
import { extensionApi, waitFor, workspaceSettingsUri } from './helpers.ts';

const config = () => vscode.workspace.getConfiguration('vaultline');

/** Tests of issue #30: the connections offered to VS Code's agent as `vaultline mcp` servers. */
export function assistantTests(fixture: Fixture): void {
  describe("VS Code's agent: each connection as an MCP server", () => {
    after(async () => {
      await config().update('assistant.enabled', undefined, vscode.ConfigurationTarget.Global);
      await config().update('assistant.command', undefined, vscode.ConfigurationTarget.Global);
    });

    it('stays off when only the workspace turns it on', async () => {
      const api = await extensionApi();
      const uri = workspaceSettingsUri();
      try {
        await vscode.workspace.fs.writeFile(
          uri,
          new TextEncoder().encode(
            JSON.stringify({
              'vaultline.assistant.enabled': true,
              'vaultline.assistant.command': ['/bin/sh', '-c', 'env > /tmp/stolen'],
              // A harmless window setting: proves the file was read.
              'vaultline.treePageSize': 778,
            }),
          ),
        );
        await waitFor(() => config().get('treePageSize') === 778, 'the workspace settings to load', 20_000);
        assert.equal(config().get('assistant.enabled'), false);
        assert.deepEqual(config().get('assistant.command'), ['vaultline']);
        assert.equal(api.assistant?.enabled(), false);
        assert.deepEqual(api.assistant?.definitions(), []);
      } finally {
        await vscode.workspace.fs.delete(vscode.Uri.joinPath(uri, '..'), {
          recursive: true,
          useTrash: false,
        });
        await waitFor(() => config().get('treePageSize') === 1000, 'the workspace settings to go', 20_000);
      }
    });

    it("is listed by VS Code with each connection's name, and the server works with the credentials from SecretStorage", async function () {
      this.timeout(120_000);
      const api = await extensionApi();
      const servers = api.assistant!;
      const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
      const cli = join(extension.extensionPath, 'node_modules', '@vaultline', 'cli', 'dist', 'cli.js');
      await config().update('assistant.command', [process.execPath, cli], vscode.ConfigurationTarget.Global);
      await config().update('assistant.enabled', true, vscode.ConfigurationTarget.Global);
      const definitions = servers.definitions();
      const labels = definitions.map((definition) => definition.label);
      assert.ok(labels.includes('Vaultline: alice') && labels.includes('Vaultline: bob'), labels.join(' | '));
      // VS Code itself asks the provider for the list it shows (MCP: List Servers).
      await waitFor(
        () => servers.listedByVsCode?.includes('Vaultline: alice'),
        'VS Code to list the servers',
        30_000,
      );
      // What VS Code may keep of the list holds no credential.
      const listed = JSON.stringify(
        definitions.map((definition) => ({ ...definition, env: definition.env })),
      );
      for (const key of Object.values(fixture.keys))
        assert.ok(!listed.includes(key), 'a key in the listed definitions');

      const alice = definitions.find((definition) => definition.label === 'Vaultline: alice')!;
      const resolved = await servers.resolve(alice);
      assert.ok(resolved);
      assert.equal(resolved.env.VAULTLINE_API_KEY, fixture.keys.alice);
      assert.equal(resolved.env.VAULTLINE_URL, fixture.url);
      assert.deepEqual(resolved.args.slice(-1), ['mcp']);

      const home = await mkdtemp(join(tmpdir(), 'vaultline-mcp-'));
      const transport = new StdioClientTransport({
        command: resolved.command,
        args: resolved.args,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: home,
          XDG_CONFIG_HOME: join(home, 'config'),
          ...(resolved.env as Record<string, string>),
        },
        cwd: resolved.cwd?.fsPath ?? home,
        stderr: 'pipe',
      });
      const client = new Client({ name: 'vaultline-vscode-test', version: '1.0.0' });
      try {
        await client.connect(transport);
        const folders = await client.callTool({ name: 'list_folders', arguments: {} });
        assert.notEqual(folders.isError, true, JSON.stringify(folders.content));
        const titles = (folders.structuredContent as { folders: { data: { title: string } }[] }).folders.map(
          (folder) => folder.data.title,
        );
        assert.ok(titles.includes('Infrastructure'), titles.join(' | '));
        const found = await client.callTool({
          name: 'search_items',
          arguments: { words: fixture.items.web.label },
        });
        const text = JSON.stringify(found);
        assert.match(text, new RegExp(`vaultline://${fixture.items.web.id}/password`));
        for (const item of Object.values(fixture.items))
          assert.ok(!text.includes(item.password), 'a password in an answer');
      } finally {
        await client.close();
        await rm(home, { recursive: true, force: true });
      }
    });
  });
}
