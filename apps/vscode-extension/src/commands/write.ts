import { COMMANDS } from '../constants.ts';
import { UserFacingError } from '../error-messages.ts';
import { requireItemRef } from '../item-ref.ts';
import type { VaultNode } from '../tree-nodes.ts';
import type { DeleteOptions, FolderValues, ItemChange, NewItem } from '../vault-writer.ts';
import { type CommandGroup, command } from './command.ts';
import { asFolder, folderOf } from './targets.ts';

/** Add, edit and delete items and folders; the tree reloads what changed. */
export const writeCommands: CommandGroup = ({ writer, tree, notifier }) => [
  command(COMMANDS.addItem, 'Add item', async (node: unknown, values?: NewItem) => {
    const folder = asFolder(node);
    const id = await writer.addItem(folder, values);
    if (id !== undefined) tree.refresh(folder);
    return id;
  }),
  command(COMMANDS.editItem, 'Edit item', async (target: unknown, change?: ItemChange) => {
    const ref = requireItemRef(target);
    const done = await writer.editItem(ref, folderOf(target), change);
    if (done) tree.refresh(folderOf(target));
    return done;
  }),
  command(COMMANDS.deleteItem, 'Delete item', async (target: unknown, options?: DeleteOptions) => {
    const ref = requireItemRef(target);
    const done = await writer.deleteItem(ref, options);
    if (done) tree.refresh(folderOf(target));
    return done;
  }),
  command(COMMANDS.addFolder, 'Add folder', async (node: unknown, values?: FolderValues) => {
    const parent = node as VaultNode | undefined;
    if (!parent || (parent.kind !== 'folder' && parent.kind !== 'connection'))
      throw new UserFacingError('choose a connection or folder in the Vaultline view.');
    const id = await writer.addFolder(parent, values);
    if (id !== undefined) {
      tree.refresh(parent.kind === 'folder' ? undefined : parent);
      notifier.info(`Folder created (id ${id}). A vault administrator grants access to it.`);
    }
    return id;
  }),
  command(COMMANDS.editFolder, 'Edit folder', async (node: unknown, values?: FolderValues) => {
    const done = await writer.editFolder(asFolder(node), values);
    if (done) tree.refresh();
    return done;
  }),
  command(COMMANDS.deleteFolder, 'Delete folder', async (node: unknown, options?: DeleteOptions) => {
    const done = await writer.deleteFolder(asFolder(node), options);
    if (done) tree.refresh();
    return done;
  }),
];
