import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS } from '../../src/constants.ts';
import type { HitPick } from '../../src/item-search.ts';
import { extensionApi, logMark, logSince, waitFor } from './helpers.ts';
import type { Target } from './target.ts';

/**
 * Makes `match` the active entry and accepts it, again while the results refresh, until the
 * QuickPick is closed (bounded): a later query may replace the items between two steps.
 */
async function acceptWhen(
  search: { active: vscode.QuickPick<HitPick> | undefined },
  quickPick: vscode.QuickPick<HitPick>,
  match: (entry: HitPick) => boolean,
): Promise<void> {
  for (let i = 0; i < 60 && search.active === quickPick; i++) {
    const entry = quickPick.items.find(match);
    if (entry) {
      quickPick.activeItems = [entry];
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  assert.notEqual(search.active, quickPick, 'the QuickPick accepted the entry');
}

export function searchTests(target: Target): void {
  const fixture = target;
  describe(`search on ${target.title}`, () => {
    it('finds items by label part and formats entries as label — path — login', async () => {
      const api = await extensionApi();
      const { hits, problems } = await api.search.find('db-');
      assert.deepEqual(problems, []);
      const mine = hits.filter((hit) => hit.connection === target.alice);
      assert.deepEqual(
        mine.map((hit) => api.search.format(hit)),
        [`${fixture.items.db.label} — Infrastructure / Databases — ${fixture.items.db.login}`],
      );
    });

    it("applies each login's rights: bob finds nothing in folders he cannot read", async () => {
      const api = await extensionApi();
      const { hits } = await api.search.find(fixture.items.db.label);
      assert.deepEqual(
        hits.map((hit) => hit.connection),
        [target.alice],
      );
      const web = await api.search.find(fixture.items.web.label);
      assert.deepEqual(web.hits.map((hit) => hit.connection).sort(), [target.alice, target.bob].sort());
    });

    it('finds a label by a query with a space, a dot and another case (TeamPass refuses such a segment)', async () => {
      const api = await extensionApi();
      const admin = target.client();
      const { id } = await admin.items.create({
        label: 'Postgres prod.example',
        password: 'Sp4ce-Dot!Pass-2026',
        folderId: target.folders.databases,
      });
      try {
        for (const query of ['postgres prod.example', 'PROD.EX', 'gres prod']) {
          const { hits, problems } = await api.search.find(query);
          assert.deepEqual(problems, [], query);
          // Words, not one piece of the label: "gres prod" also finds db-prod (login postgres),
          // which comes first by label, both holding "prod" whole in their label.
          assert.deepEqual(
            hits.map((hit) => [hit.connection, hit.item.label]),
            [
              ...(query === 'gres prod' ? [[target.alice, fixture.items.db.label]] : []),
              [target.alice, 'Postgres prod.example'],
            ],
            query,
          );
        }
      } finally {
        await admin.items.delete([id]);
      }
    });

    it('finds by words in any order in the login, URL and folder path, label words first', async () => {
      const api = await extensionApi();
      // db-prod: login postgres, URL postgres://db.internal:5432/app; neither word is in its label.
      const { hits, problems } = await api.search.find('internal POSTGRES');
      assert.deepEqual(problems, []);
      assert.deepEqual(
        hits.map((hit) => [hit.connection, hit.item.label]),
        [[target.alice, fixture.items.db.label]],
      );
      const admin = target.client();
      const { id } = await admin.items.create({
        label: 'Example notes',
        password: 'Ex4mple-Notes!2026',
        folderId: target.folders.databases,
      });
      try {
        // "example" is in this label, and in the URLs of ci-runner and web-frontend: the label first.
        const example = await api.search.find('example');
        assert.deepEqual(
          example.hits.filter((hit) => hit.connection === target.alice).map((hit) => hit.item.label),
          ['Example notes', fixture.items.ci.label, fixture.items.web.label],
        );
        assert.equal(example.hits[0]?.item.label, 'Example notes');
      } finally {
        await admin.items.delete([id]);
      }
    });

    it('answers hostile and unicode queries without failing', async () => {
      const api = await extensionApi();
      for (const query of ['%2F..%2F', "'; DROP TABLE items; --", 'ünï©ødé 🔑', 'x'.repeat(300)]) {
        const { hits, problems } = await api.search.find(query);
        assert.deepEqual(hits, [], `no hit for ${query}`);
        for (const problem of problems) assert.doesNotMatch(problem.text, /\n\s+at /, 'no stack trace');
      }
    });

    it('queries as the user types, debounced, and resolves with the chosen item', async () => {
      const api = await extensionApi();
      const mark = logMark(api);
      const chosen = api.search.pick();
      const quickPick = await waitFor(() => api.search.active, 'the QuickPick');
      quickPick.value = 'w';
      quickPick.value = 'we';
      quickPick.value = 'web';
      await acceptWhen(
        api.search,
        quickPick,
        (entry) => entry.hit?.item.id === fixture.items.web.id && entry.hit.connection === target.alice,
      );
      const ref = await chosen;
      // A search is one search request per connection, or one read of the folders where the
      // server's search sees labels only (TeamPass): the core then matches the words itself.
      const queries = logSince(api, mark).filter(
        (line) => line.includes(` ${target.searchEndpoint} `) || line.includes(` ${target.folderRead} `),
      ).length;
      // Three keystrokes, two connections: without the debounce that would be six queries.
      assert.ok(queries >= 2 && queries < 6, `${queries} find/item queries`);
      assert.equal(ref?.itemId, fixture.items.web.id);
      assert.equal(ref?.connection, target.alice);
    });

    it('runs the whole search command: type, choose the item, choose "Insert Login"', async () => {
      const api = await extensionApi();
      const document = await vscode.workspace.openTextDocument({ content: 'user=' });
      const editor = await vscode.window.showTextDocument(document);
      editor.selections = [new vscode.Selection(0, 5, 0, 5)];
      const done = vscode.commands.executeCommand(COMMANDS.search);
      const quickPick = await waitFor(() => api.search.active, 'the QuickPick');
      quickPick.value = fixture.items.stripe.label.slice(0, 6);
      await acceptWhen(api.search, quickPick, (entry) => entry.hit?.item.id === fixture.items.stripe.id);
      // The action list opens next, "Insert Login" first; accept it once it is there (accepting with
      // no QuickPick open does nothing), within a bound.
      let settled = false;
      void done.then(() => {
        settled = true;
      });
      for (let i = 0; i < 50 && !settled; i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        if (!settled) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      }
      assert.equal(await done, 1);
      assert.equal(editor.document.getText(), `user=${fixture.items.stripe.login}`);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    });
  });
}
