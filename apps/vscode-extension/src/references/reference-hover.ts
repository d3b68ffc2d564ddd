import { OTP_FIELD } from '@vaultline/protocol';
import * as vscode from 'vscode';
import { COMMANDS, MASK } from '../constants.ts';
import { userMessage } from '../error-messages.ts';
import type { PresentationMode } from '../presentation-mode.ts';
import type { VaultModel } from '../vault-model.ts';
import { ReferenceResolver } from './reference-resolver.ts';
import type { RevealedValues } from './revealed-values.ts';

/** A `command:` link whose arguments are JSON, as markdown hovers need them. */
function commandLink(title: string, command: string, args: unknown[]): string {
  return `[${title}](command:${command}?${encodeURIComponent(JSON.stringify(args))})`;
}

/**
 * The hover of a reference in any file: the item's label, folder path and login (masked in
 * presentation mode), never the password, with Reveal and Copy links. A reference that does not
 * resolve shows why.
 */
export class ReferenceHover implements vscode.HoverProvider {
  private readonly resolver: ReferenceResolver;
  private readonly presentation: PresentationMode;
  private readonly model: VaultModel;
  private readonly revealed: RevealedValues;

  constructor(
    resolver: ReferenceResolver,
    presentation: PresentationMode,
    model: VaultModel,
    revealed: RevealedValues,
  ) {
    this.resolver = resolver;
    this.presentation = presentation;
    this.model = model;
    this.revealed = revealed;
  }

  async provideHover(
    document: vscode.TextDocument,
    position: vscode.Position,
  ): Promise<vscode.Hover | undefined> {
    const at = ReferenceResolver.at(document, position);
    if (!at) return undefined;
    const markdown = new vscode.MarkdownString();
    markdown.isTrusted = {
      enabledCommands: [COMMANDS.goToItem, COMMANDS.copyReferencedValue, COMMANDS.revealReferencedValue],
    };
    markdown.supportThemeIcons = true;
    markdown.appendMarkdown('$(key) **Vaultline** ');
    if (at.error) {
      markdown.appendText(at.error.message);
      return new vscode.Hover(markdown, at.range);
    }
    let outcome: Awaited<ReturnType<ReferenceResolver['resolve']>>[number] | undefined;
    try {
      // The hover shows the item, never the value: checked without reading it.
      [outcome] = await this.resolver.resolve([at.text], { values: false });
    } catch (error) {
      markdown.appendText(userMessage(error, vscode.l10n.t('Reference')));
      return new vscode.Hover(markdown, at.range);
    }
    const result = outcome?.result;
    if (!result) return undefined;
    if (!result.ok) {
      markdown.appendText(result.error.message);
      return new vscode.Hover(markdown, at.range);
    }
    const { item } = result;
    const login = this.presentation.enabled ? MASK : item.login;
    // The folder as the view names it ("Personal", not its owner's user id).
    const path =
      (outcome?.connection !== undefined
        ? await this.model.folderPathOf(outcome.connection, item.folderId)
        : undefined) ?? item.path;
    markdown.appendText(item.label);
    // A one-time code changes every few seconds: the hover says what the reference stands for.
    if (result.reference.field === OTP_FIELD)
      markdown.appendText(
        ` · ${vscode.l10n.t('one-time code (TOTP): the current code is read when it is copied or revealed')}`,
      );
    markdown.appendMarkdown('\n\n');
    markdown.appendText(
      vscode.l10n.t(
        'Folder: {0} · Login: {1} · Connection: {2}',
        path.join(' / ') || '—',
        login || '—',
        outcome?.connection ?? '—',
      ),
    );
    const uri = document.uri.toString();
    // "Reveal" shows the value here, in the hover, for the clear delay (never while presenting).
    const shown = this.presentation.enabled ? undefined : this.revealed.get(uri, at.text);
    if (shown) {
      markdown.appendCodeblock(shown.value, 'text');
      markdown.appendText(
        result.reference.field === OTP_FIELD
          ? vscode.l10n.t('Valid, and shown, {0} more s.', shown.secondsLeft)
          : vscode.l10n.t('Hidden again in {0} s.', shown.secondsLeft),
      );
    }
    const links = [
      ...(this.presentation.enabled || shown
        ? []
        : [
            commandLink(vscode.l10n.t('$(eye) Reveal'), COMMANDS.revealReferencedValue, [
              at.text,
              uri,
              at.range.start.line,
              at.range.start.character,
            ]),
          ]),
      commandLink(vscode.l10n.t('$(copy) Copy value'), COMMANDS.copyReferencedValue, [at.text]),
      commandLink(vscode.l10n.t('$(list-tree) Show in the Vault view'), COMMANDS.goToItem, [at.text]),
    ];
    markdown.appendMarkdown('\n\n');
    markdown.appendMarkdown(links.join(' · '));
    return new vscode.Hover(markdown, at.range);
  }
}
