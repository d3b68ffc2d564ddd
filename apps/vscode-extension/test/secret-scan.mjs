// Looks for secrets in every file VS Code wrote during the run (logs, Output channels, settings,
// state, backups): the API keys and passwords must never reach the disk.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * @param {string} dir The folder to scan (code-server's user data, XDG dirs, workspace).
 * @param {string[]} secrets The strings that must not appear.
 * @returns {{ files: string[], leaks: string[] }} Every file scanned, and "file: which secret" per leak.
 */
export function scanForSecrets(dir, secrets) {
  const files = [];
  const leaks = [];
  const walk = (path) => {
    let stats;
    try {
      stats = statSync(path);
    } catch {
      return;
    }
    if (stats.isDirectory()) {
      for (const entry of readdirSync(path)) walk(join(path, entry));
      return;
    }
    if (!stats.isFile() || stats.size > 20 * 1024 * 1024) return;
    files.push(relative(dir, path));
    const text = readFileSync(path).toString('latin1');
    const utf8 = readFileSync(path, 'utf8');
    for (const secret of secrets) {
      const variants = [
        secret,
        encodeURIComponent(secret),
        Buffer.from(secret).toString('base64url').slice(0, -2),
      ];
      if (variants.some((variant) => text.includes(variant) || utf8.includes(variant))) {
        leaks.push(`${relative(dir, path)}: ${secret.slice(0, 3)}…`);
      }
    }
  };
  walk(dir);
  return { files, leaks };
}
