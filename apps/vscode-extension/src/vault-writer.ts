import {
  COMPLEXITY_LEVELS,
  type ComplexityLevel,
  generatePassword,
  permissionsOf,
} from '@vaultline/protocol';
import * as vscode from 'vscode';
import type { ConnectionStore } from './connections.ts';
import { UserFacingError } from './error-messages.ts';
import type { ItemRef } from './item-ref.ts';
import { complexityName, strengthProblem } from './password-strength.ts';
import { type FolderNode, folderName } from './tree-nodes.ts';

/** Values of a new item; anything missing is asked for. */
export interface NewItem {
  label?: string;
  login?: string;
  password?: string;
  url?: string;
  email?: string;
  description?: string;
}

/** One field change of an item; prompted when missing. */
export interface ItemChange {
  field?: 'label' | 'login' | 'password' | 'url' | 'email' | 'description';
  value?: string;
}

/** Values of a new or renamed folder; prompted when missing. */
export interface FolderValues {
  title?: string;
  complexityLevel?: ComplexityLevel;
}

/** Skips the confirmation dialog when a caller has confirmed already (scripts, tests). */
export interface DeleteOptions {
  confirmed?: boolean;
}

const EDITABLE_FIELDS = ['label', 'login', 'password', 'url', 'email', 'description'] as const;

/**
 * Adds, edits and deletes items and folders. Checks the login's right on the folder first (a
 * TeamPass key may write anywhere), then lets the server decide; its refusals reach the user as
 * plain messages.
 */
export class VaultWriter {
  private readonly connections: ConnectionStore;

  constructor(connections: ConnectionStore) {
    this.connections = connections;
  }

  async addItem(folder: FolderNode, values: NewItem = {}): Promise<number | undefined> {
    const connection = await this.connections.get(folder.connection);
    this.requireRight(
      folder,
      'add',
      vscode.l10n.t('you have no right to add items to folder "{0}".', folderName(folder.folder)),
    );
    const label =
      values.label ??
      (await ask({ prompt: vscode.l10n.t('Label of the new item'), validateInput: required }));
    if (label === undefined) return undefined;
    const login = values.login ?? (await ask({ prompt: vscode.l10n.t('Login (optional)') }));
    if (login === undefined) return undefined;
    const password = values.password ?? (await this.askNewPassword(folder));
    if (password === undefined) return undefined;
    const weak = strengthProblem(password, folder.folder.complexityLevel);
    if (weak !== undefined) throw new UserFacingError(weak);
    const url = values.url ?? (await ask({ prompt: vscode.l10n.t('URL (optional)') }));
    if (url === undefined) return undefined;
    const { id } = await connection.client.addItem({
      item: {
        label,
        password,
        folderId: folder.folder.id,
        login,
        url,
        email: values.email ?? '',
        description: values.description ?? '',
      },
    });
    connection.access.invalidate();
    return id;
  }

  async editItem(ref: ItemRef, folder: FolderNode | undefined, change: ItemChange = {}): Promise<boolean> {
    const connection = await this.connections.get(ref.connection);
    if (
      !(await connection.access.canWrite(await connection.actingLogin(), {
        id: ref.itemId,
        folderId: ref.folderId,
      }))
    ) {
      throw new UserFacingError(vscode.l10n.t('{0} has no right to edit this item.', connection.login));
    }
    const field =
      change.field ??
      ((await vscode.window.showQuickPick([...EDITABLE_FIELDS], {
        placeHolder: vscode.l10n.t('Which field to change?'),
      })) as ItemChange['field'] | undefined);
    if (field === undefined) return false;
    let value = change.value;
    if (value === undefined) {
      if (field === 'password') value = await this.askNewPassword(folder);
      else {
        // Only the chosen field is shown for editing; the password is never prefilled.
        const current = (await connection.client.getItem(ref.itemId))[field];
        value = await ask({
          prompt: vscode.l10n.t('New {0}', field),
          value: current,
          ...(field === 'label' ? { validateInput: required } : {}),
        });
      }
    }
    if (value === undefined) return false;
    if (!(EDITABLE_FIELDS as readonly string[]).includes(field)) {
      throw new UserFacingError(
        vscode.l10n.t(
          'expected one of {0}, received {1}.',
          EDITABLE_FIELDS.join(', '),
          String(JSON.stringify(field)).slice(0, 40),
        ),
      );
    }
    if (typeof value !== 'string')
      throw new UserFacingError(vscode.l10n.t('expected the new value as text.'));
    if (field === 'label' && value.trim() === '')
      throw new UserFacingError(vscode.l10n.t('the label cannot be empty.'));
    const weak = field === 'password' ? strengthProblem(value, folder?.folder.complexityLevel) : undefined;
    if (weak !== undefined) throw new UserFacingError(weak);
    await connection.client.updateItemFields(ref.itemId, { [field]: value });
    return true;
  }

  async deleteItem(ref: ItemRef, options: DeleteOptions = {}): Promise<boolean> {
    const connection = await this.connections.get(ref.connection);
    if (
      !(await connection.access.canDelete(await connection.actingLogin(), {
        id: ref.itemId,
        folderId: ref.folderId,
      }))
    ) {
      throw new UserFacingError(vscode.l10n.t('{0} has no right to delete this item.', connection.login));
    }
    const name = ref.label ?? vscode.l10n.t('item {0}', ref.itemId);
    if (!options.confirmed && !(await confirm(vscode.l10n.t('Delete "{0}" from the vault?', name))))
      return false;
    await connection.client.deleteItems({ ids: [ref.itemId] });
    connection.access.invalidate();
    return true;
  }

  async addFolder(
    parent: FolderNode | { connection: string },
    values: FolderValues = {},
  ): Promise<number | undefined> {
    const connection = await this.connections.get(parent.connection);
    const parentFolder = 'folder' in parent ? parent : undefined;
    if (parentFolder)
      this.requireRight(
        parentFolder,
        'add',
        vscode.l10n.t('you have no right to add folders to folder "{0}".', folderName(parentFolder.folder)),
      );
    const title =
      values.title ??
      (await ask({ prompt: vscode.l10n.t('Title of the new folder'), validateInput: required }));
    if (title === undefined) return undefined;
    const complexityLevel = values.complexityLevel ?? (await askComplexity());
    if (complexityLevel === undefined) return undefined;
    const { id } = await connection.client.addFolder({
      folder: { title, complexityLevel, parentId: parentFolder?.folder.id ?? 0 },
    });
    connection.access.invalidate();
    return id;
  }

  async editFolder(folder: FolderNode, values: FolderValues = {}): Promise<boolean> {
    const connection = await this.connections.get(folder.connection);
    this.requireRight(
      folder,
      'edit',
      vscode.l10n.t('you have no right to edit folder "{0}".', folderName(folder.folder)),
    );
    const title =
      values.title ??
      (await ask({
        prompt: vscode.l10n.t('New folder title'),
        value: folder.folder.title,
        validateInput: required,
      }));
    if (title === undefined) return false;
    const complexityLevel =
      values.complexityLevel ?? asLevel(folder.folder.complexityLevel) ?? (await askComplexity());
    if (complexityLevel === undefined) return false;
    await connection.client.updateFolder({
      id: folder.folder.id,
      folder: { title, complexityLevel, renewalPeriod: 0 },
    });
    connection.access.invalidate();
    return true;
  }

  async deleteFolder(folder: FolderNode, options: DeleteOptions = {}): Promise<boolean> {
    const connection = await this.connections.get(folder.connection);
    this.requireRight(
      folder,
      'delete',
      vscode.l10n.t('you have no right to delete folder "{0}".', folderName(folder.folder)),
    );
    if (
      !options.confirmed &&
      !(await confirm(
        vscode.l10n.t('Delete folder "{0}" and everything in it from the vault?', folderName(folder.folder)),
      ))
    ) {
      return false;
    }
    await connection.client.deleteFolders({ ids: [folder.folder.id] });
    connection.access.invalidate();
    return true;
  }

  /** Throws `message` when the folder's right (from the core's rights table) does not allow it. */
  private requireRight(folder: FolderNode, right: 'add' | 'edit' | 'delete', message: string): void {
    if (!permissionsOf(folder.folder.accessType)[right]) throw new UserFacingError(message);
  }

  private async askNewPassword(folder: FolderNode | undefined): Promise<string | undefined> {
    const level = folder?.folder.complexityLevel;
    const generate = vscode.l10n.t('Generate a strong password');
    const choice = await vscode.window.showQuickPick([generate, vscode.l10n.t('Type a password')], {
      placeHolder: vscode.l10n.t('Password of the item'),
    });
    if (choice === undefined) return undefined;
    if (choice === generate) return generatePassword({ complexityLevel: level });
    return ask({
      prompt: vscode.l10n.t('Password'),
      password: true,
      // Judged once something is typed: an empty box is not yet an error.
      validateInput: (text) => (text === '' ? undefined : capitalize(strengthProblem(text, level))),
    });
  }
}

function required(text: string): string | undefined {
  return text.trim() === '' ? vscode.l10n.t('Required.') : undefined;
}

function asLevel(level: number | undefined): ComplexityLevel | undefined {
  return (COMPLEXITY_LEVELS as readonly number[]).includes(level ?? -1)
    ? (level as ComplexityLevel)
    : undefined;
}

async function ask(options: vscode.InputBoxOptions): Promise<string | undefined> {
  return vscode.window.showInputBox({ ignoreFocusOut: true, ...options });
}

/** A message as a sentence of its own (an input box's validation says no "Edit item:" first). */
function capitalize(text: string | undefined): string | undefined {
  return text === undefined ? undefined : text.charAt(0).toUpperCase() + text.slice(1);
}

async function askComplexity(): Promise<ComplexityLevel | undefined> {
  const picked = await vscode.window.showQuickPick(
    COMPLEXITY_LEVELS.map((level) => ({ label: complexityName(level), level })),
    { placeHolder: vscode.l10n.t('Minimum password strength of the folder') },
  );
  return picked?.level;
}

async function confirm(message: string): Promise<boolean> {
  const remove = vscode.l10n.t('Delete');
  const answer = await vscode.window.showWarningMessage(message, { modal: true }, remove);
  return answer === remove;
}
