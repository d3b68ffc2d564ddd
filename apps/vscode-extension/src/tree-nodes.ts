import type { AccessType, Item } from '@vaultline/protocol';
import * as vscode from 'vscode';
import type { FixAction } from './error-messages.ts';

/** What the tree keeps of an item: never the password. */
export interface ItemSummary {
  id: number;
  label: string;
  login: string;
  email: string;
  url: string;
  description: string;
  folderId: number;
  /** Its folder's path, top first, as people see it ({@link folderName}) once the folders are known. */
  path: readonly string[];
  /** Its tags, where the server has them (`capabilities().tags`); empty otherwise. */
  tags: readonly string[];
  /** Whether it holds a one-time code (TOTP) the server reads out (`capabilities().otp`). */
  otp: boolean;
}

/** A folder as the tree shows it. */
export interface FolderSummary {
  id: number;
  title: string;
  accessType: AccessType;
  parentId: number | undefined;
  level: number;
  /** The folder's minimum password strength when the server reports it. */
  complexityLevel: number | undefined;
  /** A user's personal folder (TeamPass titles it with the owner's user id): shown as "Personal". */
  personal: boolean;
}

export interface ConnectionNode {
  kind: 'connection';
  connection: string;
  login: string;
  url: string;
}

export interface FolderNode {
  kind: 'folder';
  connection: string;
  folder: FolderSummary;
  /** The login of the connection, for the personal folder's tooltip. */
  parentLogin: string;
  parent: ConnectionNode | FolderNode;
  subfolders: FolderNode[];
}

export interface ItemNode {
  kind: 'item';
  connection: string;
  item: ItemSummary;
  parent: FolderNode;
}

export interface FileNode {
  kind: 'file';
  connection: string;
  file: { id: number; name: string; type: string; size: number };
  parent: ItemNode;
}

/** An error, warning, empty or loading row; errors carry what to retry. */
export interface MessageNode {
  kind: 'message';
  connection: string;
  /** `warning`: the load worked but leaves the user nothing (a login that may read no folder). */
  severity: 'error' | 'warning' | 'info';
  text: string;
  /** Set on the row that stands for the items of a large folder that are not shown yet. */
  more?: FolderNode;
  /** What fixes an error row when it is not Retry (Connect again, for a rejected or missing key). */
  fix?: FixAction;
  /** Set on a note about the whole connection (its server keeps no attachments). */
  note?: 'no-attachments';
  parent: VaultNode | undefined;
}

export type VaultNode = ConnectionNode | FolderNode | ItemNode | FileNode | MessageNode;

/**
 * Keeps what the tree may show of an item.
 *
 * @param item An item as the client returns it, password included.
 * @returns The item without its password.
 */
export function summarizeItem(
  item: Pick<Item, Exclude<keyof ItemSummary, 'tags' | 'otp'>> & Partial<Pick<Item, 'tags' | 'otp'>>,
): ItemSummary {
  return {
    id: item.id,
    label: item.label,
    login: item.login,
    email: item.email,
    url: item.url,
    description: item.description,
    folderId: item.folderId,
    path: item.path,
    tags: item.tags ?? [],
    otp: item.otp === true,
  };
}

/**
 * A folder's name as people see it, wherever a folder is named (tree, paths, pickers, messages):
 * "Personal" for a personal folder, which TeamPass titles with its owner's user id; the title
 * otherwise.
 */
export function folderName(folder: Pick<FolderSummary, 'title' | 'personal'>): string {
  return folder.personal ? vscode.l10n.t('Personal') : folder.title;
}

/** A folder's path, top first, in {@link folderName}s. */
export function folderPath(node: FolderNode): string[] {
  const names: string[] = [];
  for (let at: FolderNode | ConnectionNode = node; at.kind === 'folder'; at = at.parent)
    names.unshift(folderName(at.folder));
  return names;
}
