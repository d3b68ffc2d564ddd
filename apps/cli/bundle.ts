// Bundles the program (src/main.ts and its dependencies) into dist/main.js, one file: loading one
// module instead of about a hundred cuts the CLI's start-up. Run after tsc, which emits the
// types and dist/cli.js; the native keychain module stays external. What only `vaultline mcp`
// loads (the MCP SDK) is split into dist/chunks/, so that no other command parses it.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

// Chunks are named by their hash: drop the last build's, so that none is left over (or packed).
rmSync('dist/chunks', { recursive: true, force: true });

await build({
  entryPoints: ['src/main.ts'],
  outdir: 'dist',
  entryNames: '[name]',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22.12',
  sourcemap: true,
  external: ['@napi-rs/keyring'],
  // ofetch's "node" entry wraps node-fetch-native, which loads node:http, https and http2 (about
  // 60 ms at start); Node 24 has fetch, so take its standard entry, listed under "worker".
  conditions: ['worker'],
  // commander is CommonJS: give the bundle a require for its node: built-ins.
  banner: {
    js: "import { createRequire as __vaultlineRequire } from 'node:module';\nconst require = __vaultlineRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
