import * as vscode from 'vscode';
import type { FixAction } from './error-messages.ts';

/** A message shown to the user. */
export interface Notice {
  severity: 'error' | 'warning' | 'info';
  text: string;
  /** The titles of its buttons. */
  actions: string[];
}

/**
 * Shows messages and remembers the last ones (already plain, redacted sentences) so that the
 * "what happened" is inspectable by scripts and tests. A button runs its command.
 */
export class Notifier {
  private readonly recent: Notice[] = [];

  get notices(): readonly Notice[] {
    return this.recent;
  }

  error(text: string, actions: readonly FixAction[] = []): void {
    this.remember({ severity: 'error', text, actions: actions.map((a) => a.title) });
    void vscode.window
      .showErrorMessage(text, ...actions.map((a) => a.title))
      .then((chosen) => run(actions, chosen));
  }

  warning(text: string): void {
    this.remember({ severity: 'warning', text, actions: [] });
    void vscode.window.showWarningMessage(text);
  }

  /**
   * A warning with buttons whose answer the caller acts on itself.
   *
   * @returns The title of the button chosen, or `undefined` when the warning was closed.
   */
  ask(text: string, choices: readonly string[]): Thenable<string | undefined> {
    this.remember({ severity: 'warning', text, actions: [...choices] });
    return vscode.window.showWarningMessage(text, ...choices);
  }

  /** A confirmation of what was done (added, uploaded, saved, disconnected). */
  info(text: string): void {
    this.remember({ severity: 'info', text, actions: [] });
    void vscode.window.showInformationMessage(text);
  }

  /** A short confirmation in the status bar, for frequent actions such as insert. */
  status(text: string): void {
    this.remember({ severity: 'info', text, actions: [] });
    vscode.window.setStatusBarMessage(text, 4000);
  }

  private remember(notice: Notice): void {
    this.recent.push(notice);
    // Bounded memory; large enough that a session (or the whole test suite, which reads notices by
    // position) never reaches it.
    if (this.recent.length > 1000) this.recent.shift();
  }
}

function run(actions: readonly FixAction[], chosen: string | undefined): void {
  const action = actions.find((a) => a.title === chosen);
  if (action) void vscode.commands.executeCommand(action.command, ...(action.args ?? []));
}
