import * as vscode from 'vscode';
import { CONFIG, CONFIG_SECTION, CONTEXT_KEYS, MASK } from './constants.ts';
import { UserFacingError } from './error-messages.ts';

/**
 * One toggle for screen sharing: logins and URLs are masked in the tree and in search, and every
 * action that would put a secret on screen (inserting a password, opening an attachment) refuses.
 */
export class PresentationMode implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<boolean>();
  readonly onDidChange = this.changed.event;
  private readonly listener: vscode.Disposable;

  constructor() {
    this.listener = vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`${CONFIG_SECTION}.${CONFIG.presentationMode}`)) {
        void this.syncContext();
        this.changed.fire(this.enabled);
      }
    });
    void this.syncContext();
  }

  get enabled(): boolean {
    return vscode.workspace.getConfiguration(CONFIG_SECTION).get<boolean>(CONFIG.presentationMode, false);
  }

  /** Masks a login or URL when the mode is on. */
  mask(text: string): string {
    return this.enabled && text !== '' ? MASK : text;
  }

  /** Throws when the mode is on: for actions that would show a secret. */
  assertOff(action: string): void {
    if (this.enabled) throw new UserFacingError(`${action} is disabled in presentation mode.`);
  }

  async toggle(on = !this.enabled): Promise<void> {
    await vscode.workspace
      .getConfiguration(CONFIG_SECTION)
      .update(CONFIG.presentationMode, on, vscode.ConfigurationTarget.Global);
  }

  dispose(): void {
    this.listener.dispose();
    this.changed.dispose();
  }

  private async syncContext(): Promise<void> {
    await vscode.commands.executeCommand('setContext', CONTEXT_KEYS.presentationMode, this.enabled);
  }
}
