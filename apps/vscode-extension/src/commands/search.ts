import * as vscode from 'vscode';
import { COMMANDS, ITEM_FIELDS } from '../constants.ts';
import { fieldLabel } from '../field-labels.ts';
import { type ItemRef, requireItemRef } from '../item-ref.ts';
import { type CommandGroup, command } from './command.ts';

/** One thing to do with a found item: a command and its arguments. */
export interface SearchAction extends vscode.QuickPickItem {
  command: string;
  args: unknown[];
}

/**
 * What search offers for a found item: insert a field (none while presenting), copy
 * a field or its current one-time code (when it holds one), reveal it in the view. Each runs its command, as the tree's menu does: running it is
 * what the walkthrough's steps listen for.
 *
 * @param ref The item.
 * @param presenting Whether presentation mode is on.
 */
export function searchActions(ref: ItemRef, presenting: boolean): SearchAction[] {
  return [
    // Nothing is inserted while presenting (the view and search mask logins and URLs too).
    ...(presenting ? [] : ITEM_FIELDS).map((f) => ({
      label: vscode.l10n.t('$(insert) Insert {0}', fieldLabel(f)),
      command: COMMANDS.insertField,
      args: [ref, f],
    })),
    ...ITEM_FIELDS.map((f) => ({
      label: vscode.l10n.t('$(copy) Copy {0}', fieldLabel(f)),
      command: COMMANDS.copyField,
      args: [ref, f],
    })),
    // Only items that hold one: a server without one-time codes marks none.
    ...(ref.otp
      ? [
          {
            label: vscode.l10n.t('$(watch) Copy One-Time Code'),
            command: COMMANDS.copyOneTimeCode,
            args: [ref],
          },
        ]
      : []),
    {
      label: vscode.l10n.t('$(list-tree) Reveal in the Vaultline view'),
      command: COMMANDS.revealItem,
      args: [ref],
    },
  ];
}

/** Search, then act on the chosen item: insert, copy or reveal. */
export const searchCommands: CommandGroup = (services) => [
  command(COMMANDS.search, vscode.l10n.t('Search'), async () => {
    const { search, presentation } = services;
    const ref = await search.pick();
    if (!ref) return undefined;
    const action = await vscode.window.showQuickPick(searchActions(ref, presentation.enabled), {
      placeHolder: ref.label ?? '',
    });
    return action ? vscode.commands.executeCommand(action.command, ...action.args) : undefined;
  }),
  // Selects an item in the view, loading its folder when needed.
  command(COMMANDS.revealItem, vscode.l10n.t('Reveal'), async (target: unknown) => {
    const ref = requireItemRef(target);
    if (ref.folderId === undefined) return false;
    const node = await services.tree.findItem(ref.connection, ref.folderId, ref.itemId);
    if (node) await services.treeView.reveal(node, { select: true, focus: true, expand: false });
    return node !== undefined;
  }),
];
