import * as vscode from 'vscode';

/** A message shown to the user. */
export interface Notice {
  severity: 'error' | 'warning' | 'info';
  text: string;
}

/**
 * Shows messages and remembers the last ones (already plain, redacted sentences) so that the
 * "what happened" is inspectable by scripts and tests.
 */
export class Notifier {
  private readonly recent: Notice[] = [];

  get notices(): readonly Notice[] {
    return this.recent;
  }

  error(text: string): void {
    this.remember({ severity: 'error', text });
    void vscode.window.showErrorMessage(text);
  }

  warning(text: string): void {
    this.remember({ severity: 'warning', text });
    void vscode.window.showWarningMessage(text);
  }

  info(text: string): void {
    this.remember({ severity: 'info', text });
    void vscode.window.showInformationMessage(text);
  }

  /** A short confirmation in the status bar, for frequent actions such as insert. */
  status(text: string): void {
    this.remember({ severity: 'info', text });
    vscode.window.setStatusBarMessage(text, 4000);
  }

  private remember(notice: Notice): void {
    this.recent.push(notice);
    if (this.recent.length > 100) this.recent.shift();
  }
}
