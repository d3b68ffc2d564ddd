import { compareSearchHits, type SearchRank } from '@vaultline/protocol';
import * as vscode from 'vscode';
import type { ConnectionStore } from './connections.ts';
import { COMMANDS, CONFIG, CONFIG_SECTION, DEFAULTS } from './constants.ts';
import { type FixAction, noReadableFolderMessage, userMessage } from './error-messages.ts';
import type { ItemRef } from './item-ref.ts';
import type { PresentationMode } from './presentation-mode.ts';
import { folderPath, type ItemSummary, summarizeItem } from './tree-nodes.ts';
import type { VaultTree } from './vault-tree.ts';

/** One search hit. */
export interface SearchHit {
  connection: string;
  item: ItemSummary;
  /** How well it matches, in the core's terms: hits of all connections are ordered by it. */
  rank: SearchRank;
}

/** Why a connection (or the search as a whole) could not be searched, and what fixes it. */
export interface SearchProblem {
  /** The connection, or `undefined` for "no connection at all". */
  connection: string | undefined;
  /** The same sentence the tree shows for the same failure. */
  text: string;
  /** The command that fixes it: Connect (no connection, rejected key) or Retry. */
  fix: FixAction;
}

/** What one search found. */
export interface SearchOutcome {
  hits: SearchHit[];
  /** One per connection that could not be searched; the others' hits are still there. */
  problems: SearchProblem[];
  /** The connections whose server may have left results out (it answered as many as its cap). */
  truncated: string[];
}

/** A QuickPick entry, with its hit or the problem it stands for. */
export interface HitPick extends vscode.QuickPickItem {
  hit?: SearchHit;
  problem?: SearchProblem;
}

/**
 * Search over the protocol core's `items.search` (every word in the label, login, URL or folder
 * path, ranked; the core knows what each server can search) in every folder each connection's
 * login may read, the hits of all connections in the core's order. When a connection cannot be
 * searched, the search says why in the tree's words and offers the fix; it never answers "no item"
 * for a search that did not run.
 */
export class ItemSearch implements vscode.Disposable {
  /** The QuickPick while it is open: lets scripts and tests type into it. */
  active: vscode.QuickPick<HitPick> | undefined;

  private readonly connections: ConnectionStore;
  private readonly tree: VaultTree;
  private readonly presentation: PresentationMode;

  constructor(connections: ConnectionStore, tree: VaultTree, presentation: PresentationMode) {
    this.connections = connections;
    this.tree = tree;
    this.presentation = presentation;
  }

  /** Runs one search over all connections. A connection that fails does not hide another's hits. */
  async find(query: string): Promise<SearchOutcome> {
    const hits: SearchHit[] = [];
    const problems: SearchProblem[] = [];
    const truncated: string[] = [];
    const names = this.connections.list().map((c) => c.name);
    if (names.length === 0) {
      problems.push({
        connection: undefined,
        text: vscode.l10n.t('No vault is connected.'),
        fix: { title: vscode.l10n.t('Connect to a Vault'), command: 'vaultline.connect' },
      });
    }
    await Promise.all(
      names.map(async (name) => {
        // The folder list comes from the tree, so a failure here is the tree's own error row.
        const folders = await this.tree.model.readableFolders(name);
        if (!Array.isArray(folders)) {
          problems.push({ connection: name, text: folders.text, fix: this.tree.fixOf(folders) });
          return;
        }
        if (folders.length === 0) {
          const login = this.connections.list().find((c) => c.name === name)?.login ?? name;
          const root = this.tree.model.root(name);
          problems.push({
            connection: name,
            text: `${name}: ${noReadableFolderMessage(login)}`,
            fix: {
              title: vscode.l10n.t('Refresh'),
              command: COMMANDS.refreshNode,
              ...(root ? { args: [root] } : {}),
            },
          });
          return;
        }
        let redact = (text: string) => text;
        try {
          const connection = await this.connections.get(name);
          redact = connection.client.redact;
          const result = await connection.client.items.search(query, {
            folderIds: folders.map((f) => f.folder.id),
          });
          // Every folder searched grants read (readableFolders), so every hit in them is readable.
          const byId = new Map(folders.map((folder) => [folder.folder.id, folder]));
          for (const { item, rank } of result.hits) {
            const folder = byId.get(item.folderId);
            const path = folder ? folderPath(folder) : item.path;
            hits.push({ connection: name, item: { ...summarizeItem(item), path }, rank });
          }
          if (result.truncated) truncated.push(name);
        } catch (error) {
          const text = userMessage(error, name, redact);
          problems.push({ connection: name, text, fix: this.tree.model.fixFor(name, error) });
        }
      }),
    );
    hits.sort((a, b) => compareSearchHits(a, b) || a.connection.localeCompare(b.connection));
    problems.sort((a, b) => (a.connection ?? '').localeCompare(b.connection ?? ''));
    return { hits, problems, truncated };
  }

  /** The entry text: `label — path — login`, the login masked in presentation mode. */
  format(hit: SearchHit): string {
    const login = this.presentation.mask(hit.item.login);
    return [hit.item.label, hit.item.path.join(' / '), login].filter((part) => part !== '').join(' — ');
  }

  /**
   * The QuickPick entries of an outcome: the hits first, in the core's order, then the connections
   * that could not be searched (Enter on one runs its fix), then the truncation notes. A problem
   * row never comes before a hit, so the preselected row is a hit whenever there is one.
   */
  entries(query: string, outcome: SearchOutcome): HitPick[] {
    const many = this.connections.list().length > 1;
    const entries: HitPick[] = [
      ...outcome.hits.map(
        (hit): HitPick => ({
          label: this.format(hit),
          ...(many ? { detail: hit.connection } : {}),
          alwaysShow: true,
          hit,
        }),
      ),
      ...outcome.problems.map(
        (problem): HitPick => ({
          // The words go in the description: VS Code ranks the rows whose label matches the typed
          // text first, and a problem row must never rank among the hits (issue #31.3).
          label: '$(error)',
          description: problem.text,
          detail: vscode.l10n.t('Press Enter to {0}.', problem.fix.title.toLowerCase()),
          alwaysShow: true,
          problem,
        }),
      ),
      ...outcome.truncated.map(
        (name): HitPick => ({
          label: vscode.l10n.t(
            '$(info) {0}: the vault returned as many results as it sends; type more to narrow.',
            name,
          ),
          alwaysShow: true,
        }),
      ),
    ];
    // "No item" only when every connection was searched.
    if (outcome.hits.length === 0 && outcome.problems.length === 0)
      entries.push({
        label: vscode.l10n.t('No item has every word of "{0}" in its label, login, URL or folder', query),
        alwaysShow: true,
      });
    return entries;
  }

  /**
   * Shows the QuickPick and resolves with the chosen item, or `undefined` when dismissed. Enter on
   * a problem runs its fix (Connect, Retry) instead.
   *
   * @param title What the choice is for.
   */
  pick(title = vscode.l10n.t('Search the vault')): Promise<ItemRef | undefined> {
    this.active?.dispose();
    const quickPick = vscode.window.createQuickPick<HitPick>();
    this.active = quickPick;
    quickPick.title = title;
    quickPick.placeholder = vscode.l10n.t('Type words of a label, login, URL or folder');
    quickPick.matchOnDescription = true;
    const debounceMs = vscode.workspace
      .getConfiguration(CONFIG_SECTION)
      .get<number>(CONFIG.searchDebounceMs, DEFAULTS.searchDebounceMs);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let generation = 0;
    // The fix of a problem entry runs once the QuickPick is gone, so that its own dialog stays open.
    let fix: FixAction | undefined;
    const run = async (query: string) => {
      const mine = ++generation;
      if (query.trim() === '') {
        quickPick.items = [];
        quickPick.busy = false;
        return;
      }
      quickPick.busy = true;
      const outcome = await this.find(query.trim());
      if (mine !== generation) return;
      const items = this.entries(query.trim(), outcome);
      quickPick.items = items;
      // The best hit is the preselected row, never a problem row while there are hits.
      const best = items.find((item) => item.hit !== undefined);
      if (best) quickPick.activeItems = [best];
      quickPick.busy = false;
    };
    return new Promise<ItemRef | undefined>((resolve) => {
      quickPick.onDidChangeValue((value) => {
        if (timer !== undefined) clearTimeout(timer);
        timer = setTimeout(() => void run(value), debounceMs);
      });
      quickPick.onDidAccept(() => {
        const [selected] = quickPick.selectedItems;
        if (selected?.problem) {
          fix = selected.problem.fix;
          quickPick.hide();
          return;
        }
        const hit = selected?.hit;
        if (!hit) return;
        resolve({
          connection: hit.connection,
          itemId: hit.item.id,
          folderId: hit.item.folderId,
          label: hit.item.label,
          otp: hit.item.otp,
        });
        quickPick.hide();
      });
      quickPick.onDidHide(() => {
        if (timer !== undefined) clearTimeout(timer);
        resolve(undefined);
        quickPick.dispose();
        if (this.active === quickPick) this.active = undefined;
        if (fix) void vscode.commands.executeCommand(fix.command, ...(fix.args ?? []));
      });
      quickPick.show();
    });
  }

  dispose(): void {
    this.active?.dispose();
  }
}
