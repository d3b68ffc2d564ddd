import * as vscode from 'vscode';
import type { ConnectionStore } from './connections.ts';
import { ATTACHMENT_SCHEME, MAX_TEXT_ATTACHMENT_BYTES, TEXT_MEDIA_TYPES } from './constants.ts';
import { UserFacingError } from './error-messages.ts';
import type { ItemRef } from './item-ref.ts';
import type { PresentationMode } from './presentation-mode.ts';
import type { FileNode } from './tree-nodes.ts';

/**
 * Attachments: opened as read-only documents of their own scheme (unlike untitled files, these are
 * never backed up to disk), saved where the user says, uploaded from a file.
 */
export class Attachments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly registration: vscode.Disposable;
  private readonly connections: ConnectionStore;
  private readonly presentation: PresentationMode;

  constructor(connections: ConnectionStore, presentation: PresentationMode) {
    this.connections = connections;
    this.presentation = presentation;
    this.registration = vscode.workspace.registerTextDocumentContentProvider(ATTACHMENT_SCHEME, this);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    // A document restored or reopened while presenting shows nothing of the attachment.
    if (this.presentation.enabled) return vscode.l10n.t('(hidden in presentation mode)');
    const [connection, id] = decodeURIComponent(uri.authority).split('\u0000');
    const fileId = Number(id ?? uri.path.split('/')[1]);
    const { bytes } = await this.download(connection ?? '', fileId);
    return asText(bytes);
  }

  /** Opens a text attachment in a read-only editor. */
  async open(node: FileNode): Promise<vscode.TextEditor> {
    this.presentation.assertOff(vscode.l10n.t('Opening an attachment'));
    if (node.file.size > MAX_TEXT_ATTACHMENT_BYTES)
      throw new UserFacingError(vscode.l10n.t('the attachment is too large to open.'));
    await this.requireRead(node);
    // Checks the type from the bytes before an editor shows anything.
    const { bytes, contentType } = await this.download(node.connection, node.file.id);
    if (!isText(contentType || node.file.type, bytes)) {
      throw new UserFacingError(
        vscode.l10n.t('"{0}" is not a text file. Use "Save Attachment" instead.', node.file.name),
      );
    }
    const uri = vscode.Uri.from({
      scheme: ATTACHMENT_SCHEME,
      authority: encodeURIComponent(`${node.connection}\u0000${node.file.id}`),
      path: `/${node.file.id}/${node.file.name.replace(/[/\\]/g, '_')}`,
    });
    const document = await vscode.workspace.openTextDocument(uri);
    return vscode.window.showTextDocument(document, { preview: true });
  }

  /** Saves an attachment to a file; asks where when no target is given. */
  async save(node: FileNode, target?: vscode.Uri): Promise<vscode.Uri | undefined> {
    this.presentation.assertOff(vscode.l10n.t('Saving an attachment'));
    const destination =
      target ??
      (await vscode.window.showSaveDialog({
        saveLabel: vscode.l10n.t('Save attachment'),
        defaultUri: vscode.Uri.joinPath(
          vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file('/'),
          safeName(node.file.name),
        ),
      }));
    if (!destination) return undefined;
    await this.requireRead(node);
    const { bytes } = await this.download(node.connection, node.file.id);
    await vscode.workspace.fs.writeFile(destination, bytes);
    return destination;
  }

  /** Uploads a file to an item; asks which when no source is given. */
  async upload(ref: ItemRef, source?: vscode.Uri): Promise<number | undefined> {
    const connection = await this.connections.get(ref.connection);
    if (
      !(await connection.access.canWrite(await connection.actingLogin(), {
        id: ref.itemId,
        folderId: ref.folderId,
      }))
    ) {
      throw new UserFacingError(
        vscode.l10n.t('{0} has no right to add files to this item.', connection.login),
      );
    }
    const file =
      source ??
      (await vscode.window.showOpenDialog({ canSelectMany: false, openLabel: vscode.l10n.t('Attach') }))?.[0];
    if (!file) return undefined;
    const bytes = await vscode.workspace.fs.readFile(file);
    const fileName = file.path.split('/').pop() || 'attachment';
    const result = await connection.client.files.upload(ref.itemId, { file: bytes, fileName });
    return result.id ?? 0;
  }

  dispose(): void {
    this.registration.dispose();
  }

  private async requireRead(node: FileNode): Promise<void> {
    const connection = await this.connections.get(node.connection);
    const item = node.parent.item;
    if (!(await connection.access.canRead(await connection.actingLogin(), item))) {
      throw new UserFacingError(vscode.l10n.t('{0} has no access to this item.', connection.login));
    }
  }

  private async download(connectionName: string, fileId: number) {
    if (!Number.isInteger(fileId) || fileId <= 0)
      throw new UserFacingError(vscode.l10n.t('that is not an attachment.'));
    const connection = await this.connections.get(connectionName);
    return connection.client.files.download(fileId);
  }
}

function safeName(name: string): string {
  const printable = [...name].map((char) => ((char.codePointAt(0) ?? 0) < 0x20 ? '_' : char)).join('');
  return printable.replace(/[/\\:*?"<>|]/g, '_').replace(/^\.+/, '_') || 'attachment';
}

function isText(type: string, bytes: Uint8Array): boolean {
  const media = type.split(';')[0]?.trim().toLowerCase() ?? '';
  if (media.startsWith('text/') || (TEXT_MEDIA_TYPES as readonly string[]).includes(media)) return true;
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return media === '' || media === 'application/octet-stream';
  } catch {
    return false;
  }
}

function asText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8').decode(bytes);
}
