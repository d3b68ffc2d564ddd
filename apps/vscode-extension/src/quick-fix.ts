import * as vscode from 'vscode';

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
export function commandQuickFix(
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
