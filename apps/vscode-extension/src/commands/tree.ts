import { COMMANDS } from '../constants.ts';
import type { MessageNode, VaultNode } from '../tree-nodes.ts';
import { type CommandGroup, command } from './command.ts';

/** The view: refresh, retry a failed load, show a large folder whole, show the log. */
export const treeCommands: CommandGroup = ({ tree, log }) => [
  command(COMMANDS.refresh, 'Refresh', (node?: VaultNode) => tree.refresh(node)),
  command(COMMANDS.retry, 'Retry', (node: MessageNode) => tree.retry(node)),
  command(COMMANDS.showAllItems, 'Show all items', (node: MessageNode) => {
    if (node?.more) tree.showAll(node.more);
  }),
  command(COMMANDS.showLog, 'Show log', () => log.show()),
];
