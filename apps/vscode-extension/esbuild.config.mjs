// Bundles the extension (CJS, `vscode` external, as VS Code loads it) and the integration suite.
import { build, context } from 'esbuild';

const watch = process.argv.includes('--watch');
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  external: ['vscode'],
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
