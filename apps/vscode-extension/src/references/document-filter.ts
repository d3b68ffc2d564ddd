import * as vscode from 'vscode';
import { CONFIG, CONFIG_SECTION, DEFAULTS } from '../constants.ts';

/** Schemes of documents people edit; output channels, git views and Vaultline's own documents are not checked. */
const CHECKED_SCHEMES: ReadonlySet<string> = new Set(['file', 'untitled', 'vscode-remote', 'vscode-vfs']);

/** The largest document (in characters) that secret detection and reference checks look at. */
export function maxCheckedSize(): number {
  return vscode.workspace
    .getConfiguration(CONFIG_SECTION)
    .get<number>(CONFIG.secretDetectionMaxFileSize, DEFAULTS.secretDetectionMaxFileSize);
}

/** Whether a document is checked: an editable scheme and not over the size limit. */
export function isChecked(document: vscode.TextDocument): boolean {
  if (!CHECKED_SCHEMES.has(document.uri.scheme)) return false;
  // getText() of a huge document is itself costly: the offset of its end is the size.
  return document.offsetAt(document.lineAt(document.lineCount - 1).range.end) <= maxCheckedSize();
}

/**
 * Runs a check on every open document and again after each change (debounced), and forgets a
 * document when it closes. The check sets its own diagnostics.
 */
export function watchDocuments(
  check: (document: vscode.TextDocument) => Promise<void> | void,
  forget: (uri: vscode.Uri) => void,
  debounceMs = 300,
): vscode.Disposable {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const schedule = (document: vscode.TextDocument, delay: number) => {
    const key = document.uri.toString();
    clearTimeout(timers.get(key));
    timers.set(
      key,
      setTimeout(() => {
        timers.delete(key);
        void check(document);
      }, delay),
    );
  };
  for (const document of vscode.workspace.textDocuments) schedule(document, 0);
  const subscriptions = [
    vscode.workspace.onDidOpenTextDocument((document) => schedule(document, 0)),
    vscode.workspace.onDidChangeTextDocument((event) => {
      if (event.contentChanges.length > 0) schedule(event.document, debounceMs);
    }),
    vscode.workspace.onDidCloseTextDocument((document) => {
      clearTimeout(timers.get(document.uri.toString()));
      timers.delete(document.uri.toString());
      forget(document.uri);
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(CONFIG_SECTION))
        for (const document of vscode.workspace.textDocuments) schedule(document, 0);
    }),
  ];
  return new vscode.Disposable(() => {
    for (const timer of timers.values()) clearTimeout(timer);
    for (const subscription of subscriptions) subscription.dispose();
  });
}
