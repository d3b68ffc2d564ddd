// Bundles the extension (CJS, `vscode` external, as VS Code loads it) and the integration suite.
import { build, context } from 'esbuild';

const watch = process.argv.includes('--watch');
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
}
