import * as vscode from 'vscode';
import { CONFIG, CONFIG_SECTION, DEFAULTS, MAX_CLEAR_SECONDS } from './constants.ts';
import type { Notifier } from './notifier.ts';

/**
 * Copies values with auto-clear: after the configured delay the clipboard is emptied. In a desktop
 * window only if it still holds what was copied (only a SHA-256 digest of the value is kept for
 * that check); in a browser it is emptied without being read: there a read needs a permission the
 * browser may never grant, and VS Code waits for the user's answer.
 */
export class ClipboardCopier implements vscode.Disposable {
  private readonly status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 100);
  private timer: ReturnType<typeof setInterval> | undefined;
  private resolveClear: ((cleared: boolean) => void) | undefined;
  private visible = false;
  private pendingDigest: string | undefined;
  private pendingWhat = '';
  private readonly notifier: Notifier;
  /** Whether the clipboard is read before it is cleared: in a desktop window only. */
  private readonly readsFirst = vscode.env.uiKind === vscode.UIKind.Desktop;

  constructor(notifier: Notifier) {
    this.notifier = notifier;
  }

  /** The countdown shown in the status bar, or '' when nothing is pending. */
  get statusText(): string {
    return this.visible ? this.status.text : '';
  }

  /**
   * Copies a value and schedules its removal.
   *
   * @returns `cleared`: settles when the clear has run, true when it emptied the clipboard.
   */
  async copy(value: string, what: string, requested?: unknown): Promise<{ cleared: Promise<boolean> }> {
    // A caller's delay is used only when sane: a bad one must never mean "never cleared".
    const seconds = clearSeconds(requested);
    this.cancel(false);
    await vscode.env.clipboard.writeText(value);
    const digest = await sha256(value);
    this.pendingDigest = digest;
    this.pendingWhat = what;
    const deadline = Date.now() + seconds * 1000;
    const cleared = new Promise<boolean>((resolve) => {
      this.resolveClear = resolve;
    });
    const tick = () => {
      const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      this.status.text = vscode.l10n.t('$(clippy) {0} clears in {1}s', what, left);
      if (Date.now() >= deadline) void this.clear(digest);
    };
    this.status.tooltip = vscode.l10n.t('Vaultline clears the clipboard if it still holds the copied value.');
    tick();
    this.status.show();
    this.visible = true;
    this.timer = setInterval(tick, Math.min(1000, Math.max(50, seconds * 250)));
    return { cleared };
  }

  /** Clears a pending value now when the clipboard still holds it: on shutdown, nothing lingers. */
  async flush(): Promise<void> {
    if (this.pendingDigest !== undefined && this.timer !== undefined) await this.clear(this.pendingDigest);
  }

  dispose(): void {
    void this.flush().finally(() => this.status.dispose());
  }

  private async clear(digest: string): Promise<void> {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    const what = this.pendingWhat;
    let cleared = false;
    try {
      if (!this.readsFirst || (await stillHolds(digest))) {
        await vscode.env.clipboard.writeText('');
        cleared = true;
      }
    } catch (error) {
      this.notifier.warning(
        vscode.l10n.t(
          'Vaultline could not clear the clipboard ({0}): it may still hold the {1}. Copy something else to replace it.',
          error instanceof Error ? error.message : String(error),
          what.toLowerCase(),
        ),
      );
    } finally {
      this.cancel(cleared);
    }
  }

  private cancel(cleared: boolean): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.status.hide();
    this.visible = false;
    this.resolveClear?.(cleared);
    this.resolveClear = undefined;
    this.pendingDigest = undefined;
  }
}

/**
 * How long a value stays where it was put (the clipboard, a hover): a caller's delay when sane (a
 * bad one must never mean "never cleared"), else `vaultline.clipboardClearSeconds`.
 *
 * @param requested A caller's delay in seconds, if any.
 * @returns Seconds, at most {@link MAX_CLEAR_SECONDS}.
 */
export function clearSeconds(requested?: unknown): number {
  if (typeof requested === 'number' && Number.isFinite(requested) && requested > 0)
    return Math.min(requested, MAX_CLEAR_SECONDS);
  const configured = vscode.workspace
    .getConfiguration(CONFIG_SECTION)
    .get<number>(CONFIG.clipboardClearSeconds, DEFAULTS.clipboardClearSeconds);
  return Number.isFinite(configured) && configured > 0
    ? Math.min(configured, MAX_CLEAR_SECONDS)
    : DEFAULTS.clipboardClearSeconds;
}

/** Whether the clipboard still holds the value of this digest; true when it cannot be read. */
async function stillHolds(digest: string): Promise<boolean> {
  try {
    return (await sha256(await vscode.env.clipboard.readText())) === digest;
  } catch {
    return true;
  }
}

/** The SHA-256 of a text, hex (Web Crypto: the same in Node and in a web worker). */
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}
