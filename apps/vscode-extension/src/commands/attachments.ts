import * as vscode from 'vscode';
import { COMMANDS } from '../constants.ts';
import { requireItemRef } from '../item-ref.ts';
import type { VaultNode } from '../tree-nodes.ts';
import { type CommandGroup, command } from './command.ts';
import { asFile } from './targets.ts';

/** Open, save and upload attachments; save and upload say what they did. */
export const attachmentCommands: CommandGroup = ({ attachments, tree, notifier }) => [
  command(COMMANDS.openAttachment, vscode.l10n.t('Open attachment'), (node: unknown) =>
    attachments.open(asFile(node)),
  ),
  command(
    COMMANDS.saveAttachment,
    vscode.l10n.t('Save attachment'),
    async (node: unknown, target?: vscode.Uri) => {
      const file = asFile(node);
      const saved = await attachments.save(file, target);
      if (saved)
        notifier.info(vscode.l10n.t('Saved "{0}" to {1}.', file.file.name, saved.fsPath || saved.toString()));
      return saved;
    },
  ),
  command(
    COMMANDS.uploadAttachment,
    vscode.l10n.t('Upload attachment'),
    async (target: unknown, source?: vscode.Uri) => {
      const ref = requireItemRef(target);
      const id = await attachments.upload(ref, source);
      if (id !== undefined) {
        if ((target as VaultNode).kind === 'item') tree.refresh(target as VaultNode);
        notifier.info(vscode.l10n.t('Attached the file to "{0}".', ref.label ?? String(ref.itemId)));
      }
      return id;
    },
  ),
];
