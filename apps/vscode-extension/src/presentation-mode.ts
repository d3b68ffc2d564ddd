import * as vscode from 'vscode';
import { ATTACHMENT_SCHEME, COMMANDS, CONFIG, CONFIG_SECTION, CONTEXT_KEYS, MASK } from './constants.ts';
import { UserFacingError } from './error-messages.ts';

/**
 * One switch for screen sharing: logins and URLs are masked in the tree and in search, every action
 * that would put a secret on screen (inserting a password, opening an attachment) refuses, and
 * Vaultline's open documents are closed when it turns on. While it is on, a status bar item says so
 * and the view's title shows the "turn off" icon.
 *
 * The setting is application-scoped: a workspace's `.vscode/settings.json` cannot turn it off (VS
 * Code ignores application settings outside the user's settings), so only the user does.
 */
export class PresentationMode implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<boolean>();
  readonly onDidChange = this.changed.event;
  private readonly indicator = vscode.window.createStatusBarItem(
    'vaultline.presentationMode',
    vscode.StatusBarAlignment.Left,
    1000,
  );
  private readonly listener: vscode.Disposable;
  private last: boolean;
  private visible = false;

  constructor() {
    this.indicator.name = vscode.l10n.t('Vaultline presentation mode');
    this.indicator.text = vscode.l10n.t('$(eye-closed) Presenting');
    this.indicator.tooltip = vscode.l10n.t(
      'Vaultline presentation mode is on: logins and URLs are masked, passwords and attachments are not shown. Click to turn it off.',
    );
    this.indicator.command = COMMANDS.presentationModeOff;
    this.indicator.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    this.last = this.enabled;
    this.listener = vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`${CONFIG_SECTION}.${CONFIG.presentationMode}`)) void this.sync();
    });
    void this.sync();
  }

  /** Whether the mode is on, from the user's (application) setting only. */
  get enabled(): boolean {
    return (
      vscode.workspace.getConfiguration(CONFIG_SECTION).get<boolean>(CONFIG.presentationMode, false) === true
    );
  }

  /** Whether the status bar item is showing (for tests and scripts). */
  get indicatorVisible(): boolean {
    return this.visible;
  }

  /** Masks a login or URL when the mode is on. */
  mask(text: string): string {
    return this.enabled && text !== '' ? MASK : text;
  }

  /** Throws when the mode is on: for actions that would show a secret. */
  assertOff(action: string): void {
    if (this.enabled)
      throw new UserFacingError(vscode.l10n.t('{0} is disabled in presentation mode.', action));
  }

  /** Turns the mode on or off (flips it without an argument); resolves once everything follows. */
  async toggle(on = !this.enabled): Promise<void> {
    await vscode.workspace
      .getConfiguration(CONFIG_SECTION)
      .update(CONFIG.presentationMode, on, vscode.ConfigurationTarget.Global);
    await this.sync();
  }

  dispose(): void {
    this.listener.dispose();
    this.changed.dispose();
    this.indicator.dispose();
  }

  private async sync(): Promise<void> {
    const on = this.enabled;
    if (on) this.indicator.show();
    else this.indicator.hide();
    this.visible = on;
    await vscode.commands.executeCommand('setContext', CONTEXT_KEYS.presentationMode, on);
    if (on) await closeVaultDocuments();
    if (on !== this.last) {
      this.last = on;
      this.changed.fire(on);
    }
  }
}

/** Closes every tab that shows a Vaultline document (an attachment). */
async function closeVaultDocuments(): Promise<void> {
  const tabs = vscode.window.tabGroups.all
    .flatMap((group) => group.tabs)
    .filter((tab) => {
      const input = tab.input;
      const uri =
        input instanceof vscode.TabInputText
          ? input.uri
          : input instanceof vscode.TabInputCustom
            ? input.uri
            : undefined;
      return uri?.scheme === ATTACHMENT_SCHEME;
    });
  if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true);
}
