// Bundles the extension for the Node extension host (desktop, remote: CJS, `vscode` external), for
// the web worker extension host (VS Code for the Web: `browser` entry, no Node module anywhere on
// its path), and the integration suite; writes the l10n source bundle first.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { build, context } from 'esbuild';

const watch = process.argv.includes('--watch');
if (spawnSync(process.execPath, ['scripts/l10n-bundle.mjs'], { stdio: 'inherit' }).status !== 0)
  process.exit(1);

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  external: ['vscode'],
  // ofetch's `node` entry bundles node-fetch-native (~117 KB); the extension host has a global fetch,
  // and the `worker` condition (listed before `node` in ofetch's exports) selects the fetch-only entry.
  conditions: ['worker'],
  logLevel: 'warning',
  sourcemap: 'linked',
};
const configs = [
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.cjs', minify: true },
  // The web worker host: `platform: 'browser'` makes any Node import a build error.
  {
    ...common,
    platform: 'browser',
    target: 'es2022',
    conditions: ['worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    entryPoints: ['src/extension-web.ts'],
    outfile: 'dist/web/extension.cjs',
    minify: true,
  },
  // The suite runs inside the extension host; Mocha is loaded from node_modules there.
  {
    ...common,
    entryPoints: ['test/suite/index.ts'],
    outfile: 'dist/test/suite.cjs',
    external: ['vscode', 'mocha'],
  },
];

if (watch) {
  for (const config of configs) await (await context(config)).watch();
} else {
  await Promise.all(configs.map((config) => build(config)));
  // The web bundle may require nothing but `vscode`.
  const web = readFileSync('dist/web/extension.cjs', 'utf8');
  const required = [...web.matchAll(/require\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map((m) => m[1]);
  const foreign = required.filter((name) => name !== 'vscode');
  if (foreign.length > 0 || /["'`]node:[a-z_/]+["'`]/.test(web)) {
    console.error(
      `dist/web/extension.cjs requires ${foreign.join(', ') || 'a node: module'}: not allowed in a web worker`,
    );
    process.exit(1);
  }
}
