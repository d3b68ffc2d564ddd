import * as vscode from 'vscode';

/**
 * Tells when SecretStorage has no OS keyring behind it, so that the user knows how the API key is
 * kept. VS Code on Linux falls back to a weakly obfuscated file when no Secret Service
 * (gnome-keyring, KWallet) answers on D-Bus; in a browser, keys live in the browser's storage.
 * @see https://code.visualstudio.com/docs/configure/settings-sync#_troubleshooting-keychain-issues
 *
 * @param env The extension host's environment (empty in a web worker).
 * @param platform The host's OS (`process.platform`), or `web`.
 * @returns The warning, or `undefined` when a keyring is expected.
 */
export function keyringWarning(
  env: Readonly<Record<string, string | undefined>>,
  platform: string,
  uiKind: vscode.UIKind = vscode.env.uiKind,
  remoteName: string | undefined = vscode.env.remoteName,
): string | undefined {
  if (uiKind === vscode.UIKind.Web || platform === 'web') {
    return vscode.l10n.t(
      "Vaultline: in a browser, VS Code keeps the API key in the browser's storage for this site, not in an OS keyring.",
    );
  }
  if (platform === 'linux' && remoteName === undefined && !env.DBUS_SESSION_BUS_ADDRESS) {
    return vscode.l10n.t(
      'Vaultline: no keyring (gnome-keyring, KWallet) is reachable, so VS Code may store the API key only obfuscated. Install and unlock a keyring, or use "password-store" in argv.json.',
    );
  }
  return undefined;
}
