// Bundles the program (src/main.ts and its dependencies) into dist/main.js, one file: loading one
// module instead of about a hundred cuts the CLI's start-up. Run after tsc, which emits the
// types and dist/cli.js; the native keychain module stays external. Each command's action
// (src/commands/<name>/action.ts) is loaded with import() when it runs (see lazy in
// src/context.ts), so esbuild splits it and what it needs (the vault client, prompts, the
// keychain, the MCP SDK) into dist/chunks/:
// `--version` and `--help` parse only the command tree, `read` only what reading needs.
import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

/**
 * The protocol core's entry re-exports every module. esbuild's code splitting follows each of
 * those re-exports, so a module that imports EXIT from it would share one chunk with the whole
 * core (the vault client, its schemas): `--version` would load it all. This plugin gives each
 * importer an entry of its own that re-exports only the names it imports, from their modules.
 */
function protocolEntryPerImporter(): Plugin {
  const entry = fileURLToPath(import.meta.resolve('@vaultline/protocol'));
  const moduleOf = new Map<string, string>();
  for (const [, names, from] of readFileSync(entry, 'utf8').matchAll(
    /^export \{([^}]*)\} from '([^']+)';$/gm,
  ))
    for (const name of names!
      .split(',')
      .map((word) => word.trim())
      .filter(Boolean))
      moduleOf.set(name, from!);
  return {
    name: 'protocol-entry-per-importer',
    setup(plugin) {
      plugin.onResolve({ filter: /^@vaultline\/protocol$/ }, ({ importer }) => ({
        path: importer,
        namespace: 'protocol-entry',
      }));
      plugin.onLoad({ filter: /.*/, namespace: 'protocol-entry' }, ({ path }) => {
        const byModule = new Map<string, string[]>();
        const clauses = readFileSync(path, 'utf8').matchAll(
          /(?:import|export)\s+(type\s+)?\{([^}]*)\}\s*from\s*'@vaultline\/protocol'/g,
        );
        for (const [, typeOnly, names] of clauses) {
          if (typeOnly) continue;
          for (const name of names!.split(',').map((word) => word.trim().split(/\s+as\s+/)[0]!)) {
            if (name === '' || name.startsWith('type ')) continue;
            const from = moduleOf.get(name);
            if (from === undefined) throw new Error(`${path}: @vaultline/protocol exports no ${name}`);
            byModule.set(from, [...(byModule.get(from) ?? []), name]);
          }
        }
        const contents = [...byModule].map(
          ([from, names]) => `export { ${names.join(', ')} } from '${from}';`,
        );
        return { contents: contents.join('\n'), resolveDir: dirname(entry), loader: 'js' };
      });
    },
  };
}

/**
 * commander imports node:child_process at load, for executable subcommands (`git-style`), which
 * this program has none of; loading it costs about 20 ms of CPU at every start. This plugin gives
 * commander a `childProcess` that takes the module on first use instead.
 */
function lazyChildProcessInCommander(): Plugin {
  const IMPORT = "import childProcess from 'node:child_process';";
  const LAZY =
    "const childProcess = { spawn: (...args) => process.getBuiltinModule('node:child_process').spawn(...args) };";
  return {
    name: 'lazy-child-process-in-commander',
    setup(plugin) {
      plugin.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, ({ path }) => {
        const source = readFileSync(path, 'utf8');
        if (!source.includes(IMPORT)) throw new Error(`${path}: commander no longer imports ${IMPORT}`);
        return { contents: source.replace(IMPORT, LAZY), loader: 'js' };
      });
    },
  };
}

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
  // The standard entries of packages that list one under "worker" (it was for ofetch, whose
  // "node" entry loaded node:http, https and http2 at start; the core no longer uses ofetch, and
  // loads node:http itself, with node:https only for an https URL).
  conditions: ['worker'],
  // commander is CommonJS: give the bundle a require for its node: built-ins.
  banner: {
    js: "import { createRequire as __vaultlineRequire } from 'node:module';\nconst require = __vaultlineRequire(import.meta.url);",
  },
  plugins: [protocolEntryPerImporter(), lazyChildProcessInCommander()],
  logLevel: 'warning',
});
