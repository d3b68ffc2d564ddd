import * as vscode from 'vscode';
import { COMMANDS } from '../constants.ts';
import { UserFacingError } from '../error-messages.ts';
import { requireItemRef } from '../item-ref.ts';
import { folderName, type VaultNode } from '../tree-nodes.ts';
import type { DeleteOptions, FolderValues, ItemChange, NewItem } from '../vault-writer.ts';
import { type CommandGroup, command } from './command.ts';
import { asFolder, folderOf } from './targets.ts';

/** Add, edit and delete items and folders; the tree reloads what changed and the user is told. */
export const writeCommands: CommandGroup = ({ writer, tree, notifier }) => [
  command(COMMANDS.addItem, vscode.l10n.t('Add item'), async (node: unknown, values?: NewItem) => {
    const folder = asFolder(node);
    const id = await writer.addItem(folder, values);
    if (id !== undefined) {
      tree.refresh(folder);
      notifier.info(vscode.l10n.t('Added an item to "{0}".', folderName(folder.folder)));
    }
    return id;
  }),
  command(COMMANDS.editItem, vscode.l10n.t('Edit item'), async (target: unknown, change?: ItemChange) => {
    const ref = requireItemRef(target);
    const done = await writer.editItem(ref, folderOf(target), change);
    if (done) {
      tree.refresh(folderOf(target));
      notifier.status(vscode.l10n.t('Vaultline: saved "{0}"', ref.label ?? String(ref.itemId)));
    }
    return done;
  }),
  command(
    COMMANDS.deleteItem,
    vscode.l10n.t('Delete item'),
    async (target: unknown, options?: DeleteOptions) => {
      const ref = requireItemRef(target);
      const done = await writer.deleteItem(ref, options);
      if (done) {
        tree.refresh(folderOf(target));
        notifier.status(vscode.l10n.t('Vaultline: deleted "{0}"', ref.label ?? String(ref.itemId)));
      }
      return done;
    },
  ),
  command(COMMANDS.addFolder, vscode.l10n.t('Add folder'), async (node: unknown, values?: FolderValues) => {
    const parent = node as VaultNode | undefined;
    if (!parent || (parent.kind !== 'folder' && parent.kind !== 'connection'))
      throw new UserFacingError(vscode.l10n.t('choose a connection or folder in the Vaultline view.'));
    const id = await writer.addFolder(parent, values);
    if (id !== undefined) {
      tree.refresh(parent.kind === 'folder' ? undefined : parent);
      notifier.info(vscode.l10n.t('Folder created (id {0}). A vault administrator grants access to it.', id));
    }
    return id;
  }),
  command(COMMANDS.editFolder, vscode.l10n.t('Edit folder'), async (node: unknown, values?: FolderValues) => {
    const done = await writer.editFolder(asFolder(node), values);
    if (done) tree.refresh();
    return done;
  }),
  command(
    COMMANDS.deleteFolder,
    vscode.l10n.t('Delete folder'),
    async (node: unknown, options?: DeleteOptions) => {
      const folder = asFolder(node);
      const done = await writer.deleteFolder(folder, options);
      if (done) {
        tree.refresh();
        notifier.status(vscode.l10n.t('Vaultline: deleted folder "{0}"', folderName(folder.folder)));
      }
      return done;
    },
  ),
];
