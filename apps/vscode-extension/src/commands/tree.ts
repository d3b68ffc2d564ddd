import * as vscode from 'vscode';
import { COMMANDS, WALKTHROUGH_ID } from '../constants.ts';
import type { MessageNode, VaultNode } from '../tree-nodes.ts';
import { type CommandGroup, command } from './command.ts';

/** The view: refresh, retry a failed load, show a large folder whole, show the log, the walkthrough. */
export const treeCommands: CommandGroup = ({ tree, log }) => [
  // The view's title action and the palette: the whole view, whatever row VS Code passes along.
  command(COMMANDS.refresh, vscode.l10n.t('Refresh'), () => tree.refresh()),
  // A row's own action: that row and what is below it.
  command(COMMANDS.refreshNode, vscode.l10n.t('Refresh'), (node?: VaultNode) => tree.refresh(node)),
  command(COMMANDS.retry, vscode.l10n.t('Retry'), (node: MessageNode) => tree.retry(node)),
  command(COMMANDS.showAllItems, vscode.l10n.t('Show all items'), (node: MessageNode) => {
    if (node?.more) tree.showAll(node.more);
  }),
  command(COMMANDS.showLog, vscode.l10n.t('Show log'), () => log.show()),
  command(COMMANDS.openWalkthrough, vscode.l10n.t('Get started'), () =>
    vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, false),
  ),
];
