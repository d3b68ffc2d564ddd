import type * as vscode from 'vscode';
import { COMMANDS } from '../constants.ts';
import { requireItemRef } from '../item-ref.ts';
import type { VaultNode } from '../tree-nodes.ts';
import { type CommandGroup, command } from './command.ts';
import { asFile } from './targets.ts';

/** Open, save and upload attachments. */
export const attachmentCommands: CommandGroup = ({ attachments, tree }) => [
  command(COMMANDS.openAttachment, 'Open attachment', (node: unknown) => attachments.open(asFile(node))),
  command(COMMANDS.saveAttachment, 'Save attachment', (node: unknown, target?: vscode.Uri) =>
    attachments.save(asFile(node), target),
  ),
  command(COMMANDS.uploadAttachment, 'Upload attachment', async (target: unknown, source?: vscode.Uri) => {
    const id = await attachments.upload(requireItemRef(target), source);
    if (id !== undefined && (target as VaultNode).kind === 'item') tree.refresh(target as VaultNode);
    return id;
  }),
];
