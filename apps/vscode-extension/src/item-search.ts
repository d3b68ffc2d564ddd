import * as vscode from 'vscode';
import type { ConnectionStore } from './connections.ts';
import { CONFIG, CONFIG_SECTION, DEFAULTS } from './constants.ts';
import { userMessage } from './error-messages.ts';
import type { ItemRef } from './item-ref.ts';
import type { PresentationMode } from './presentation-mode.ts';
import { type ItemSummary, summarizeItem } from './tree-nodes.ts';
import type { VaultTree } from './vault-tree.ts';

/** One search hit. */
export interface SearchHit {
  connection: string;
  item: ItemSummary;
}

/** A QuickPick entry, with its hit when it is one. */
export interface HitPick extends vscode.QuickPickItem {
  hit?: SearchHit;
}

/**
 * Search over find/item in every folder each connection's login may read, with the login's rights
 * applied to the results. The QuickPick queries as the user types, debounced.
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

  /** Runs one search over all connections. Errors of one connection do not hide another's hits. */
  async find(query: string): Promise<{ hits: SearchHit[]; errors: string[] }> {
    const hits: SearchHit[] = [];
    const errors: string[] = [];
    await Promise.all(
      this.connections.list().map(async ({ name }) => {
        try {
          const connection = await this.connections.get(name);
          const folders = await this.tree.readableFolders(name);
          if (folders.length === 0) return;
          const folderIds = new Set(folders.map((f) => f.folder.id));
          const found = await connection.client.findItems({ folderIds: [...folderIds], query });
          const inFolders = found.filter((item) => folderIds.has(item.folderId));
          // Every folder searched grants read (readableFolders), so every hit in them is readable.
          for (const item of inFolders) hits.push({ connection: name, item: summarizeItem(item) });
        } catch (error) {
          errors.push(userMessage(error, name));
        }
      }),
    );
    hits.sort((a, b) => a.item.label.localeCompare(b.item.label));
    return { hits, errors };
  }

  /** The entry text: `label — path — login`, the login masked in presentation mode. */
  format(hit: SearchHit): string {
    const login = this.presentation.mask(hit.item.login);
    return [hit.item.label, hit.item.path.join(' / '), login].filter((part) => part !== '').join(' — ');
  }

  /**
   * Shows the QuickPick and resolves with the chosen item, or `undefined` when dismissed.
   *
   * @param title What the choice is for.
   */
  pick(title = 'Search the vault'): Promise<ItemRef | undefined> {
    this.active?.dispose();
    const quickPick = vscode.window.createQuickPick<HitPick>();
    this.active = quickPick;
    quickPick.title = title;
    quickPick.placeholder = 'Type part of an item label';
    quickPick.matchOnDescription = true;
    const debounceMs = vscode.workspace
      .getConfiguration(CONFIG_SECTION)
      .get<number>(CONFIG.searchDebounceMs, DEFAULTS.searchDebounceMs);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let generation = 0;
    const run = async (query: string) => {
      const mine = ++generation;
      if (query.trim() === '') {
        quickPick.items = [];
        quickPick.busy = false;
        return;
      }
      quickPick.busy = true;
      const { hits, errors } = await this.find(query.trim());
      if (mine !== generation) return;
      quickPick.items = [
        ...errors.map((text): HitPick => ({ label: `$(error) ${text}`, alwaysShow: true })),
        ...hits.map(
          (hit): HitPick => ({
            label: this.format(hit),
            ...(this.connections.list().length > 1 ? { detail: hit.connection } : {}),
            alwaysShow: true,
            hit,
          }),
        ),
      ];
      if (hits.length === 0 && errors.length === 0) {
        quickPick.items = [{ label: `No item label contains "${query.trim()}"`, alwaysShow: true }];
      }
      quickPick.busy = false;
    };
    return new Promise<ItemRef | undefined>((resolve) => {
      quickPick.onDidChangeValue((value) => {
        if (timer !== undefined) clearTimeout(timer);
        timer = setTimeout(() => void run(value), debounceMs);
      });
      quickPick.onDidAccept(() => {
        const hit = quickPick.selectedItems[0]?.hit;
        if (!hit) return;
        resolve({
          connection: hit.connection,
          itemId: hit.item.id,
          folderId: hit.item.folderId,
          label: hit.item.label,
        });
        quickPick.hide();
      });
      quickPick.onDidHide(() => {
        if (timer !== undefined) clearTimeout(timer);
        resolve(undefined);
        quickPick.dispose();
        if (this.active === quickPick) this.active = undefined;
      });
      quickPick.show();
    });
  }

  dispose(): void {
    this.active?.dispose();
  }
}
