import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createVaultClient } from '@vaultline/protocol';
import * as vscode from 'vscode';
import { COMMANDS, DEFAULTS, EXTENSION_ID, VIEWS } from '../../src/constants.ts';
import type { FolderNode } from '../../src/tree-nodes.ts';
import type { Fixture } from './fixture.ts';
import { connect, connectionNode, disconnect, extensionApi, folderNode, setConfig } from './helpers.ts';
import { type Target, teampass3Client, teampass3Control } from './target.ts';

const RUNS = 5;

/** A figure for the record `test/run-code-server.mjs --bench` writes: one `BENCH_FIGURE <json>` line. */
function figure(value: { figure: string; result: string; goal?: string }): void {
  console.log(`BENCH_FIGURE ${JSON.stringify(value)}`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export function benchmarks(fixture: Fixture): void {
  describe('benchmarks', () => {
    it('activation time', async () => {
      const api = await extensionApi();
      const bundle = join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist/extension.cjs');
      const evaluations: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        delete require.cache[require.resolve(bundle)];
        const started = performance.now();
        require(bundle);
        evaluations.push(performance.now() - started);
      }
      console.log(`BENCH activation: ${api.activateBodyMs.toFixed(1)} ms inside activate()`);
      console.log(
        `BENCH bundle evaluation (require of dist/extension.cjs): ${median(evaluations).toFixed(1)} ms`,
      );
      console.log(
        `BENCH bundle evaluated → activate() returned: ${api.activationMs.toFixed(1)} ms (includes the extension host's own scheduling at startup)`,
      );
      assert.ok(api.activateBodyMs > 0);
      figure({
        figure: 'activation: `activate()`, and the bundle evaluated',
        result: `${api.activateBodyMs.toFixed(0)} ms inside activate(), ${median(evaluations).toFixed(0)} ms to evaluate dist/extension.cjs`,
      });
    });

    it(`refresh → first level of a folder with ${fixture.bulkCount} items rendered`, async function () {
      this.timeout(120_000);
      const api = await extensionApi();
      const client = createVaultClient({ baseUrl: fixture.url, auth: fixture.keys.alice });
      await vscode.commands.executeCommand(`workbench.view.extension.${VIEWS.container}`);

      // Baseline: the same data fetched with the bare protocol client, no tree; measured in the same
      // rounds as the tree so that server and machine load weigh on both alike.
      const baseline: number[] = [];
      const firstLevel: number[] = [];
      const rendered: number[] = [];
      const showAll: number[] = [];
      const hostOnly: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const baseStarted = performance.now();
        const items = await client.items.list(fixture.folders.bulk!).all();
        baseline.push(performance.now() - baseStarted);
        assert.equal(items.length, fixture.bulkCount);

        // The first level (the login's folders) must not wait for the big folder: items load lazily.
        await vscode.commands.executeCommand('workbench.actions.treeView.vaultline.tree.collapseAll');
        const levelStarted = performance.now();
        api.tree.refresh();
        const root = await connectionNode(api, 'alice');
        await api.treeView.reveal(root, { expand: true, select: false, focus: false });
        const level = await api.tree.getChildren(root);
        firstLevel.push(performance.now() - levelStarted);
        assert.ok(level.some((node) => node.kind === 'folder' && node.folder.title === 'Bulk'));

        await vscode.commands.executeCommand('workbench.actions.treeView.vaultline.tree.collapseAll');
        const started = performance.now();
        api.tree.refresh();
        const folder: FolderNode = await folderNode(api, 'alice', 'Bulk');
        // Expanding through the view makes the workbench fetch and render the children.
        await api.treeView.reveal(folder, { expand: true, select: false, focus: false });
        const children = await api.tree.getChildren(folder);
        rendered.push(performance.now() - started);
        assert.equal(
          children.length,
          DEFAULTS.treePageSize + 1,
          'the first page and a "show the others" row',
        );
        const more = children[children.length - 1]!;
        assert.ok(more.kind === 'message' && more.more === folder);

        const allStarted = performance.now();
        await vscode.commands.executeCommand(COMMANDS.showAllItems, more);
        const all = await api.tree.getChildren(folder);
        await api.treeView.reveal(all[all.length - 1]!, { select: false, focus: false });
        showAll.push(performance.now() - allStarted);
        assert.equal(all.length, fixture.bulkCount);

        const hostStarted = performance.now();
        api.tree.refresh(folder);
        const again = await api.tree.getChildren(folder);
        for (const child of again) api.tree.getTreeItem(child);
        hostOnly.push(performance.now() - hostStarted);
      }
      // The render path alone: the folder's items are loaded; the view fetches and draws them again.
      const redrawn: number[] = [];
      const folder = await folderNode(api, 'alice', 'Bulk');
      const children = await api.tree.getChildren(folder);
      const last = children[children.length - 1]!;
      for (let i = 0; i < RUNS; i++) {
        await api.treeView.reveal(children[0]!, { select: false, focus: false });
        const started = performance.now();
        api.tree.redraw(folder);
        await api.treeView.reveal(last, { select: false, focus: false });
        redrawn.push(performance.now() - started);
      }
      const d = median(redrawn);
      const f = median(firstLevel);
      const r = median(rendered);
      const a = median(showAll);
      const b = median(baseline);
      const h = median(hostOnly);
      console.log(
        `BENCH baseline read/folder via protocol client (${fixture.bulkCount} items): ${b.toFixed(1)} ms`,
      );
      console.log(
        `BENCH refresh → first level (the login's folders, one holding ${fixture.bulkCount} items) rendered: ${f.toFixed(1)} ms, ${(f / b).toFixed(2)}× baseline (goal < 300 ms)`,
      );
      console.log(
        `BENCH refresh → the ${fixture.bulkCount}-item folder opened, first ${DEFAULTS.treePageSize} rows rendered: ${r.toFixed(1)} ms, ${(r / b).toFixed(2)}× baseline`,
      );
      console.log(
        `BENCH "show the other ${(fixture.bulkCount ?? 0) - DEFAULTS.treePageSize} items" → all rendered (no vault call): ${a.toFixed(1)} ms, ${(a / b).toFixed(2)}× baseline`,
      );
      console.log(
        `BENCH redraw of the loaded folder (${fixture.bulkCount} rows, no vault call): ${d.toFixed(1)} ms, ${(d / b).toFixed(2)}× baseline`,
      );
      console.log(
        `BENCH reload of the folder's items + ${fixture.bulkCount} TreeItems in the host: ${h.toFixed(1)} ms, ${(h / b).toFixed(2)}× baseline`,
      );
      figure({
        figure: `refresh → first level with a ${fixture.bulkCount?.toLocaleString('en')}-item folder`,
        result: `${f.toFixed(0)} ms, ${(f / b).toFixed(2)}× the bare client's read of the folder (${b.toFixed(0)} ms)`,
        goal: '< 300 ms',
      });
      figure({
        figure: `refresh → the ${fixture.bulkCount?.toLocaleString('en')}-item folder opened, first ${DEFAULTS.treePageSize} rows`,
        result: `${r.toFixed(0)} ms, ${(r / b).toFixed(2)}× the bare client's read`,
      });
    });
  });
}

/**
 * The TeamPass 3 figures, against the fake over HTTP: refresh → first level, and → the folder of
 * 10,000 items opened (20 pages of `item/inFolders`), against the bare protocol client's read of
 * the same folder in the same rounds; and the sign-ins the view made in one token lifetime (the
 * connect, every round, a reload per round, search and copy).
 */
export function teampass3Benchmarks(fixture: Fixture, target: Target): void {
  const tp3 = fixture.teampass3;
  const control = <T = unknown>(op: string, ...args: unknown[]) => teampass3Control<T>(tp3, op, ...args);

  describe('benchmarks on TeamPass 3', () => {
    after(() => setConfig('requestTimeoutMs', undefined));

    it(`refresh → first level, and the folder of ${tp3.bulkCount} items opened, with one sign-in`, async function () {
      this.timeout(240_000);
      const api = await extensionApi();
      const bulk = tp3.folders.bulk!;
      // The baseline signs in as another user: the count below is the view's own.
      const bare = teampass3Client(tp3, 'admin');
      await bare.items.list(bulk).all();
      await control('resetCounters');
      assert.equal(await connect(target.connectArgs('alice')), true);
      await vscode.commands.executeCommand(`workbench.view.extension.${VIEWS.container}`);

      const baseline: number[] = [];
      const reloaded: number[] = [];
      const firstLevel: number[] = [];
      const opened: number[] = [];
      const pages: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const baseStarted = performance.now();
        const items = await bare.items.list(bulk).all();
        baseline.push(performance.now() - baseStarted);
        assert.equal(items.length, tp3.bulkCount);

        // A reload: new clients from the stored settings and secrets, the token read back from
        // SecretStorage (no sign-in), then the first level.
        await vscode.commands.executeCommand('workbench.actions.treeView.vaultline.tree.collapseAll');
        const reloadStarted = performance.now();
        await setConfig('requestTimeoutMs', 10_000 + i + 1);
        const fresh = await connectionNode(api, target.alice);
        await api.treeView.reveal(fresh, { expand: true, select: false, focus: false });
        await api.tree.getChildren(fresh);
        reloaded.push(performance.now() - reloadStarted);
        // What the setting change set off elsewhere (diagnostics checked again, the view's other
        // roots) settles before the steady-state figures.
        await new Promise((resolve) => setTimeout(resolve, 500));

        await vscode.commands.executeCommand('workbench.actions.treeView.vaultline.tree.collapseAll');
        const levelStarted = performance.now();
        api.tree.refresh();
        const root = await connectionNode(api, target.alice);
        await api.treeView.reveal(root, { expand: true, select: false, focus: false });
        const level = await api.tree.getChildren(root);
        firstLevel.push(performance.now() - levelStarted);
        assert.ok(level.some((node) => node.kind === 'folder' && node.folder.title === 'Bulk'));

        await vscode.commands.executeCommand('workbench.actions.treeView.vaultline.tree.collapseAll');
        const mark = await control<number>('requestCount');
        const started = performance.now();
        api.tree.refresh();
        // From the root's own children: walking every folder would load the other folders' items too.
        const top = await api.tree.getChildren(await connectionNode(api, target.alice));
        const folder = top.find(
          (node): node is FolderNode => node.kind === 'folder' && node.folder.id === bulk,
        );
        if (!folder) throw new Error('no Bulk folder under alice');
        await api.treeView.reveal(folder, { expand: true, select: false, focus: false });
        const children = await api.tree.getChildren(folder);
        opened.push(performance.now() - started);
        assert.equal(
          children.length,
          DEFAULTS.treePageSize + 1,
          'the first page and a "show the others" row',
        );
        const requests = await control<{ url: string; login?: string }[]>('requests', mark);
        pages.push(requests.filter((r) => r.url.includes('/item/inFolders') && r.login === 'alice').length);
      }
      await api.search.find('bulk-0999');
      const copied = await vscode.commands.executeCommand<{ cleared: Promise<boolean> }>(
        COMMANDS.copyField,
        { connection: target.alice, itemId: tp3.items.web.id, folderId: tp3.folders.infra },
        'login',
        0.2,
      );
      await copied.cleared;
      const signIns = await control<number>('signIns', 'alice');
      await disconnect(target.alice);

      const b = median(baseline);
      const f = median(firstLevel);
      const o = median(opened);
      const r = median(reloaded);
      console.log(
        `BENCH TeamPass 3 rounds (ms): baseline ${baseline.map(Math.round)}, reload ${reloaded.map(Math.round)}, first level ${firstLevel.map(Math.round)}, opened ${opened.map(Math.round)}`,
      );
      console.log(
        `BENCH TeamPass 3 baseline: item/inFolders of ${tp3.bulkCount} items via the protocol client: ${b.toFixed(1)} ms`,
      );
      console.log(
        `BENCH TeamPass 3 refresh → first level rendered: ${f.toFixed(1)} ms, ${(f / b).toFixed(2)}× baseline`,
      );
      console.log(
        `BENCH TeamPass 3 refresh → the ${tp3.bulkCount}-item folder opened (${pages.join('/')} pages), first ${DEFAULTS.treePageSize} rows: ${o.toFixed(1)} ms, ${(o / b).toFixed(2)}× baseline (goal < 1 s)`,
      );
      console.log(
        `BENCH TeamPass 3 reload (new clients, token from SecretStorage) → first level rendered: ${r.toFixed(1)} ms, ${(r / b).toFixed(2)}× baseline`,
      );
      console.log(
        `BENCH TeamPass 3 sign-ins in one token lifetime (connect, ${RUNS} rounds, ${RUNS} reloads, search, copy): ${signIns} (goal 1)`,
      );
      assert.ok(
        pages.every((count) => count === Math.ceil(tp3.bulkCount / 500)),
        `pages ${pages.join(', ')}`,
      );
      figure({
        figure: `TeamPass 3: refresh → first level (the login's folders, one holding ${tp3.bulkCount.toLocaleString('en')} items)`,
        result: `${f.toFixed(0)} ms, ${(f / b).toFixed(2)}× the bare client's read of the folder (${b.toFixed(0)} ms, ${pages[0]} pages)`,
      });
      figure({
        figure: `TeamPass 3: refresh → the ${tp3.bulkCount.toLocaleString('en')}-item folder opened (${pages[0]} pages of item/inFolders), first ${DEFAULTS.treePageSize.toLocaleString('en')} rows`,
        result: `${o.toFixed(0)} ms, ${(o / b).toFixed(2)}× the bare client's read (${b.toFixed(0)} ms)`,
        goal: '< 1 s',
      });
      figure({
        figure:
          'TeamPass 3: reload (new clients, the session token read back from SecretStorage) → first level',
        result: `${r.toFixed(0)} ms, ${(r / b).toFixed(2)}× the bare client's read, no sign-in`,
      });
      figure({
        figure: `TeamPass 3: sign-ins per token lifetime (connect, ${RUNS} refreshes and folder opens, ${RUNS} reloads, search, copy)`,
        result: String(signIns),
        goal: '1',
      });
      assert.equal(signIns, 1);
    });
  });
}
