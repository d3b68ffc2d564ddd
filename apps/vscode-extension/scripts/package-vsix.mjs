// Packages the extension with `vsce package --no-dependencies` from a staging folder that holds only
// what ships: vsce cannot read pnpm's `catalog:` versions in devDependencies, and nothing from
// node_modules belongs in the .vsix anyway. Usage: node scripts/package-vsix.mjs [out.vsix]
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = resolve(process.argv[2] ?? join(root, `${manifest.name}-${manifest.version}.vsix`));
const vsce = join(root, 'node_modules/@vscode/vsce/vsce');
if (!existsSync(join(root, 'dist/extension.cjs')))
  throw new Error('dist/extension.cjs is missing: run the build first.');

const stage = mkdtempSync(join(tmpdir(), 'vaultline-vsix-'));
try {
  const { devDependencies: _dev, scripts: _scripts, private: _private, ...shipped } = manifest;
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(shipped, null, 2)}\n`);
  // The screenshot lives outside the package (docs/images): the Marketplace README goes without it.
  const readme = readFileSync(join(root, 'README.md'), 'utf8').replace(/^!\[[^\]]*\]\([^)]*\)\n\n?/gm, '');
  writeFileSync(join(stage, 'README.md'), readme);
  for (const path of [
    'dist/extension.cjs',
    'dist/web',
    'media',
    'l10n',
    'package.nls.json',
    'LICENSE',
    'CHANGELOG.md',
    '.vscodeignore',
  ]) {
    if (existsSync(join(root, path))) cpSync(join(root, path), join(stage, path), { recursive: true });
  }
  const result = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '-o', out], {
    cwd: stage,
    stdio: 'inherit',
  });
  if (result.status !== 0 || !existsSync(out)) process.exit(result.status || 1);
  const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
  console.log(
    `vsix ${out}: ${kib(statSync(out).size)}; bundle dist/extension.cjs: ${kib(statSync(join(root, 'dist/extension.cjs')).size)}`,
  );
} finally {
  rmSync(stage, { recursive: true, force: true });
}
