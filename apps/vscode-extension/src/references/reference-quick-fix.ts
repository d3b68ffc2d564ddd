import * as vscode from 'vscode';
import { COMMANDS, DIAGNOSTICS } from '../constants.ts';
import { commandQuickFix } from '../quick-fix.ts';
import { REFERENCE_CODE_PREFIX } from './reference-diagnostics.ts';

/** The quick fix of an unresolvable reference: pick the item it should point at. */
export class ReferenceQuickFix implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  provideCodeActions(
    document: vscode.TextDocument,
    _range: vscode.Range,
    context: vscode.CodeActionContext,
  ): vscode.CodeAction[] {
    return context.diagnostics
      .filter(
        (diagnostic) =>
          diagnostic.source === DIAGNOSTICS.source &&
          String(diagnostic.code ?? '').startsWith(REFERENCE_CODE_PREFIX),
      )
      .map((diagnostic) =>
        commandQuickFix(
          vscode.l10n.t('Choose the vault item for this reference…'),
          COMMANDS.fixReference,
          document,
          diagnostic,
        ),
      );
  }
}
