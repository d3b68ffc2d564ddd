import * as vscode from 'vscode';
import { CONFIG, CONFIG_SECTION, DEFAULTS } from '../constants.ts';

/**
 * Schemes of documents people edit: local files, unsaved ones, and the documents of VS Code for the
 * Web and remote windows (`vscode-remote`) and of remote repositories (`vscode-vfs`). Output
 * channels, git views and Vaultline's own documents are not checked.
 */
const CHECKED_SCHEMES = ['file', 'untitled', 'vscode-remote', 'vscode-vfs'] as const;
const CHECKED: ReadonlySet<string> = new Set(CHECKED_SCHEMES);

/** The documents hover and Code Action providers are registered for: every checked scheme. */
export const CHECKED_DOCUMENTS: vscode.DocumentSelector = CHECKED_SCHEMES.map((scheme) => ({ scheme }));

/** The largest document (in characters) that secret detection and reference checks look at. */
export function maxCheckedSize(): number {
  return vscode.workspace
    .getConfiguration(CONFIG_SECTION)
    .get<number>(CONFIG.secretDetectionMaxFileSize, DEFAULTS.secretDetectionMaxFileSize);
}

/** Whether a document is checked: an editable scheme and not over the size limit. */
export function isChecked(document: vscode.TextDocument): boolean {
  if (!CHECKED.has(document.uri.scheme)) return false;
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
