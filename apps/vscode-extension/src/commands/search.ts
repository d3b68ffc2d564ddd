import * as vscode from 'vscode';
import { COMMANDS, ITEM_FIELDS } from '../constants.ts';
import { fieldLabel } from '../field-labels.ts';
import type { ItemRef } from '../item-ref.ts';
import { type CommandGroup, type CommandServices, command } from './command.ts';
import { copyValue } from './copy.ts';
import { insertValue } from './insert.ts';

/** Selects an item in the view, loading its folder when needed. */
async function reveal({ tree, treeView }: CommandServices, ref: ItemRef): Promise<void> {
  if (ref.folderId === undefined) return;
  const node = await tree.findItem(ref.connection, ref.folderId, ref.itemId);
  if (node) await treeView.reveal(node, { select: true, focus: true, expand: false });
}

/** Search, then act on the chosen item: insert, copy or reveal. */
export const searchCommands: CommandGroup = (services) => [
  command(COMMANDS.search, vscode.l10n.t('Search'), async () => {
    const { search, presentation } = services;
    const ref = await search.pick();
    if (!ref) return undefined;
    const actions = [
      ...ITEM_FIELDS.filter((f) => !(presentation.enabled && f === 'password')).map((f) => ({
        label: vscode.l10n.t('$(insert) Insert {0}', fieldLabel(f)),
        run: () => insertValue(services, ref, f),
      })),
      ...ITEM_FIELDS.map((f) => ({
        label: vscode.l10n.t('$(copy) Copy {0}', fieldLabel(f)),
        run: () => copyValue(services, ref, f),
      })),
      { label: vscode.l10n.t('$(list-tree) Reveal in the Vaultline view'), run: () => reveal(services, ref) },
    ];
    const action = await vscode.window.showQuickPick(actions, { placeHolder: ref.label ?? '' });
    return action?.run();
  }),
];
