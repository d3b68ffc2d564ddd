import * as vscode from 'vscode';
import { DIAGNOSTICS } from './constants.ts';

/**
 * A preferred quick fix that runs a command on the diagnostic's document and range: the shape of
 * every Vaultline Code Action (choose a reference's item, store a secret).
 *
 * @param title What the action says.
 * @param command The command it runs, with `(uri, range)`.
 * @param document The document.
 * @param diagnostic The diagnostic it fixes.
 * @returns The action.
 */
function commandQuickFix(
  title: string,
  command: string,
  document: vscode.TextDocument,
  diagnostic: vscode.Diagnostic,
): vscode.CodeAction {
  const action = new vscode.CodeAction(title, vscode.CodeActionKind.QuickFix);
  action.diagnostics = [diagnostic];
  action.isPreferred = true;
  action.command = { command, title, arguments: [document.uri, diagnostic.range] };
  return action;
}

/** What a {@link CommandQuickFixes} offers, and on which diagnostics. */
export interface CommandQuickFixSpec {
  /** The command each quick fix runs, with `(uri, range)`. */
  command: string;
  /** What each quick fix says (asked for at each request, as the action's title). */
  title: () => string;
  /** Whether a Vaultline diagnostic's code (as a string, `''` when none) is one this fixes. */
  fixes: (code: string) => boolean;
}

/**
 * A Code Action provider offering one {@link commandQuickFix} per Vaultline diagnostic it fixes
 * (an unresolvable reference, a detected secret).
 */
export class CommandQuickFixes implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];
  private readonly spec: CommandQuickFixSpec;

  constructor(spec: CommandQuickFixSpec) {
    this.spec = spec;
  }

  provideCodeActions(
    document: vscode.TextDocument,
    _range: vscode.Range,
    context: vscode.CodeActionContext,
  ): vscode.CodeAction[] {
    return context.diagnostics
      .filter(
        (diagnostic) =>
          diagnostic.source === DIAGNOSTICS.source && this.spec.fixes(String(diagnostic.code ?? '')),
      )
      .map((diagnostic) => commandQuickFix(this.spec.title(), this.spec.command, document, diagnostic));
  }
}
