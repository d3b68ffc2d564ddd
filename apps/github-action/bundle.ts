// Bundles the Action (src/main.ts, the protocol core and @actions/core) into dist/index.mjs, one
// file with no node_modules beside it: what a `uses:` ref runs on the Node that GitHub gives
// actions (action.yml, `runs.using: node24`). `--watch` rebuilds on change.
import { type BuildOptions, build, context } from 'esbuild';

const options: BuildOptions = {
  entryPoints: ['src/main.ts'],
  outfile: 'dist/index.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22.12',
  sourcemap: true,
  // ofetch's standard entry (the global fetch) rather than its node-fetch wrapper, as the CLI's bundle.
  conditions: ['worker'],
  // Some dependencies are CommonJS: give the bundle a require for their node: built-ins.
  banner: {
    js: "import { createRequire as __vaultlineRequire } from 'node:module';\nconst require = __vaultlineRequire(import.meta.url);",
  },
  logLevel: 'warning',
};

if (process.argv.includes('--watch')) await (await context(options)).watch();
else await build(options);
