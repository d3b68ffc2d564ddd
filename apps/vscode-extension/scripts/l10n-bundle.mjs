// Writes l10n/bundle.l10n.json: every string the extension passes to `vscode.l10n.t(...)`, the
// source (English) bundle a translator copies to bundle.l10n.<locale>.json. Run by the build, so
// the bundle never lags the code. `--check` fails when the file on disk is not current.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CALL = /l10n\.t\(\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")/g;

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

const strings = new Set();
for (const file of files(join(root, 'src'))) {
  for (const match of readFileSync(file, 'utf8').matchAll(CALL)) {
    const raw = match[1] ?? match[2] ?? '';
    strings.add(raw.replace(/\\(['"\\])/g, '$1').replace(/\\n/g, '\n'));
  }
}
const bundle = `${JSON.stringify(Object.fromEntries([...strings].sort().map((s) => [s, s])), null, 2)}\n`;
const target = join(root, 'l10n/bundle.l10n.json');
if (process.argv.includes('--check')) {
  if (!existsSync(target) || readFileSync(target, 'utf8') !== bundle) {
    console.error('l10n/bundle.l10n.json is not current: run the build.');
    process.exit(1);
  }
} else {
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, bundle);
}
