import {
  COMPLEXITY_LEVELS,
  type ComplexityLevel,
  generatePassword,
  permissionsOf,
} from '@vaultline/protocol';
import * as vscode from 'vscode';
import type { ConnectionStore } from './connections.ts';
import { UserFacingError } from './error-messages.ts';
import { fieldLabel } from './field-labels.ts';
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

/** A field of an item that Edit Item changes. */
export type EditableField = (typeof EDITABLE_FIELDS)[number];

/** How a field is called in Add Item and Edit Item ("URL", not `url`), translated. */
export function editableFieldLabel(field: EditableField): string {
  switch (field) {
    case 'label':
      return vscode.l10n.t('Label');
    case 'description':
      return vscode.l10n.t('Description');
    default:
      return fieldLabel(field);
  }
}

/** The entries of Edit Item's field picker: each field by its name in words. */
export function editableFieldPicks(): { label: string; field: EditableField }[] {
  return EDITABLE_FIELDS.map((field) => ({ label: editableFieldLabel(field), field }));
}

/** The prompt for a field's new value in Edit Item ("New URL"). */
export function newValuePrompt(field: EditableField): string {
  switch (field) {
    case 'label':
      return vscode.l10n.t('New label');
    case 'login':
      return vscode.l10n.t('New login');
    case 'password':
      return vscode.l10n.t('New password');
    case 'url':
      return vscode.l10n.t('New URL');
    case 'email':
      return vscode.l10n.t('New email');
    case 'description':
      return vscode.l10n.t('New description');
  }
}

/**
 * Adds, edits and deletes items and folders. Checks the login's right on the folder first (a
 * TeamPass key may write anywhere), then lets the server decide; its refusals reach the user as
 * plain messages.
 */
export class VaultWriter {
  /** The prompts of the last steps asked, title first (`Add Item (5/6) — Email (optional)`): for tests. */
  readonly prompts: string[] = [];
  /** The password box open now (Add Item, Edit Item): for tests. */
  passwordBox: vscode.InputBox | undefined;
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
    // Six steps, each titled with its number; the optional ones accept an empty box.
    const title = (step: number) => vscode.l10n.t('Add Item ({0}/{1})', step, 6);
    const label =
      values.label ??
      (await this.ask({
        title: title(1),
        prompt: vscode.l10n.t('Label of the new item'),
        validateInput: required,
      }));
    if (label === undefined) return undefined;
    const login =
      values.login ?? (await this.ask({ title: title(2), prompt: vscode.l10n.t('Login (optional)') }));
    if (login === undefined) return undefined;
    const password = values.password ?? (await this.askNewPassword(folder, title(3)));
    if (password === undefined) return undefined;
    const weak = strengthProblem(password, folder.folder.complexityLevel);
    if (weak !== undefined) throw new UserFacingError(weak);
    const url = values.url ?? (await this.ask({ title: title(4), prompt: vscode.l10n.t('URL (optional)') }));
    if (url === undefined) return undefined;
    const email =
      values.email ?? (await this.ask({ title: title(5), prompt: vscode.l10n.t('Email (optional)') }));
    if (email === undefined) return undefined;
    const description =
      values.description ??
      (await this.ask({ title: title(6), prompt: vscode.l10n.t('Description (optional)') }));
    if (description === undefined) return undefined;
    const { id } = await connection.client.items.create({
      label,
      password,
      folderId: folder.folder.id,
      login,
      url,
      email,
      description,
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
    const title = (step: number) => vscode.l10n.t('Edit Item ({0}/{1})', step, 2);
    const field =
      change.field ??
      (
        await vscode.window.showQuickPick(editableFieldPicks(), {
          title: title(1),
          placeHolder: vscode.l10n.t('Which field to change?'),
        })
      )?.field;
    if (field === undefined) return false;
    if (!(EDITABLE_FIELDS as readonly string[]).includes(field)) {
      throw new UserFacingError(
        vscode.l10n.t(
          'expected one of {0}, received {1}.',
          EDITABLE_FIELDS.join(', '),
          String(JSON.stringify(field)).slice(0, 40),
        ),
      );
    }
    let value = change.value;
    if (value === undefined) {
      if (field === 'password') value = await this.askNewPassword(folder, title(2));
      else {
        // Only the chosen field is shown for editing; the password is never prefilled.
        const current = (await connection.client.items.get(ref.itemId))[field];
        value = await this.ask({
          title: title(2),
          prompt: newValuePrompt(field),
          value: current,
          ...(field === 'label' ? { validateInput: required } : {}),
        });
      }
    }
    if (value === undefined) return false;
    if (typeof value !== 'string')
      throw new UserFacingError(vscode.l10n.t('expected the new value as text.'));
    if (field === 'label' && value.trim() === '')
      throw new UserFacingError(vscode.l10n.t('the label cannot be empty.'));
    const weak = field === 'password' ? strengthProblem(value, folder?.folder.complexityLevel) : undefined;
    if (weak !== undefined) throw new UserFacingError(weak);
    await connection.client.items.update(ref.itemId, { [field]: value });
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
    await connection.client.items.delete(ref.itemId);
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
      (await ask({
        title: vscode.l10n.t('Add Folder ({0}/{1})', 1, 2),
        prompt: vscode.l10n.t('Title of the new folder'),
        validateInput: required,
      }));
    if (title === undefined) return undefined;
    const complexityLevel =
      values.complexityLevel ?? (await askComplexity(vscode.l10n.t('Add Folder ({0}/{1})', 2, 2)));
    if (complexityLevel === undefined) return undefined;
    const { id } = await connection.client.folders.create({
      title,
      complexityLevel,
      parentId: parentFolder?.folder.id ?? 0,
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
        title: vscode.l10n.t('Edit Folder'),
        prompt: vscode.l10n.t('New folder title'),
        value: folder.folder.title,
        validateInput: required,
      }));
    if (title === undefined) return false;
    const complexityLevel =
      values.complexityLevel ??
      asLevel(folder.folder.complexityLevel) ??
      (await askComplexity(vscode.l10n.t('Edit Folder')));
    if (complexityLevel === undefined) return false;
    await connection.client.folders.update(folder.folder.id, { title, complexityLevel, renewalPeriod: 0 });
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
    await connection.client.folders.delete(folder.folder.id);
    connection.access.invalidate();
    return true;
  }

  /** Throws `message` when the folder's right (from the core's rights table) does not allow it. */
  private requireRight(folder: FolderNode, right: 'add' | 'edit' | 'delete', message: string): void {
    if (!permissionsOf(folder.folder.accessType)[right]) throw new UserFacingError(message);
  }

  /** An input box (kept open when focus moves away), its title and prompt remembered in {@link prompts}. */
  private ask(options: vscode.InputBoxOptions): Thenable<string | undefined> {
    this.prompts.push([options.title, options.prompt].filter(Boolean).join(' — '));
    if (this.prompts.length > 50) this.prompts.shift();
    return vscode.window.showInputBox({ ignoreFocusOut: true, ...options });
  }

  /**
   * The password step: a box that hides what is typed; Enter on an empty box, or its button,
   * generates a strong password for the folder's level.
   */
  private askNewPassword(folder: FolderNode | undefined, title: string): Promise<string | undefined> {
    const level = folder?.folder.complexityLevel;
    const prompt = vscode.l10n.t('Password (leave empty and press Enter to generate a strong one)');
    this.prompts.push(`${title} — ${prompt}`);
    if (this.prompts.length > 50) this.prompts.shift();
    const generate: vscode.QuickInputButton = {
      iconPath: new vscode.ThemeIcon('sparkle'),
      tooltip: vscode.l10n.t('Generate a strong password'),
    };
    const box = vscode.window.createInputBox();
    box.title = title;
    box.prompt = prompt;
    box.password = true;
    box.ignoreFocusOut = true;
    box.buttons = [generate];
    this.passwordBox = box;
    // Judged once something is typed: an empty box is not yet an error.
    const problem = (text: string) => (text === '' ? undefined : capitalize(strengthProblem(text, level)));
    return new Promise((resolve) => {
      const finish = (value: string | undefined) => {
        resolve(value);
        if (this.passwordBox === box) this.passwordBox = undefined;
        box.dispose();
      };
      box.onDidChangeValue((text) => {
        box.validationMessage = problem(text);
      });
      box.onDidTriggerButton(() => finish(generatePassword({ complexityLevel: level })));
      box.onDidAccept(() => {
        if (box.value === '') finish(generatePassword({ complexityLevel: level }));
        else if (problem(box.value) === undefined) finish(box.value);
        else box.validationMessage = problem(box.value);
      });
      box.onDidHide(() => finish(undefined));
      box.show();
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

async function askComplexity(title: string): Promise<ComplexityLevel | undefined> {
  const picked = await vscode.window.showQuickPick(
    COMPLEXITY_LEVELS.map((level) => ({ label: complexityName(level), level })),
    { title, placeHolder: vscode.l10n.t('Minimum password strength of the folder') },
  );
  return picked?.level;
}

async function confirm(message: string): Promise<boolean> {
  const remove = vscode.l10n.t('Delete');
  const answer = await vscode.window.showWarningMessage(message, { modal: true }, remove);
  return answer === remove;
}
