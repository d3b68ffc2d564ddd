/**
 * `pnpm check:packages`: every workspace package that is not `private` is published to npm, so its
 * packed tarball is checked as a consumer would get it, after `pnpm build`:
 *
 * - the manifest: `publishConfig.access: "public"` (changesets publishes scoped packages
 *   `restricted` otherwise), a README and a LICENSE;
 * - the tarball (`pnpm pack` into a temporary directory): only `dist/`, the README, the LICENSE and
 *   `package.json`;
 * - `publint --strict` on the tarball;
 * - `attw --profile esm-only` on the tarball (the packages are ESM-only: `node10` and `require` from
 *   CJS are out of scope);
 * - a consumer's `tsc` (`skipLibCheck: false`) importing every entry point under `node16` and
 *   `bundler` resolution: a Node consumer (with @types/node) for every package, and a browser
 *   consumer (DOM, no Node types) for the packages that promise to run outside Node, importing
 *   every entry point but the Node-only ones (`@vaultline/protocol/testing`, the TeamPass fakes).
 *
 * Prints one line per check and `N passed, N failed`; exits 1 when one fails.
 *
 * @module
 */

import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Manifest {
  name: string;
  private?: boolean;
  publishConfig?: { access?: string };
  exports?: string | Record<string, unknown>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** The module resolutions a consumer's TypeScript may use for ESM. */
const RESOLUTIONS = ['node16', 'bundler'] as const;

/**
 * Packages that promise to run outside Node (browsers, VS Code web workers: the protocol's README):
 * their types must also check for a consumer without @types/node.
 */
const ISOMORPHIC = new Set(['@vaultline/protocol']);

/** Entry points of isomorphic packages that need Node all the same: a browser consumer skips them. */
const NODE_ONLY_ENTRIES = new Set(['@vaultline/protocol/testing']);

/** Where a consumer of the package runs: Node for all, and a browser for the isomorphic ones. */
function environmentsOf(manifest: Manifest): ('node' | 'browser')[] {
  return ISOMORPHIC.has(manifest.name) ? ['node', 'browser'] : ['node'];
}

/** The entry points a consumer in that environment imports: all in Node, the isomorphic ones in a browser. */
function importsIn(environment: 'node' | 'browser', imports: string[]): string[] {
  return imports.filter((spec) => environment === 'node' || !NODE_ONLY_ENTRIES.has(spec));
}

const work = mkdtempSync(join(tmpdir(), 'vaultline-packages-'));
let passed = 0;
let failed = 0;

function report(pkg: string, check: string, problem: string | undefined): void {
  if (problem === undefined) {
    passed++;
    console.log(`PASS ${pkg}: ${check}`);
  } else {
    failed++;
    console.log(`FAIL ${pkg}: ${check}\n${problem.replace(/^/gm, '     ')}`);
  }
}

/** Runs a command; its output when it fails, `undefined` when it succeeds. */
function run(command: string, args: string[], cwd: string): string | undefined {
  try {
    execFileSync(command, args, { cwd, stdio: 'pipe', encoding: 'utf8' });
    return undefined;
  } catch (error) {
    const {
      stdout = '',
      stderr = '',
      message,
    } = error as { stdout?: string; stderr?: string; message: string };
    return `${stdout}${stderr}`.trim() || message;
  }
}

function workspacePackages(): string[] {
  const dirs: string[] = [];
  for (const group of ['packages', 'apps', 'tooling']) {
    const base = join(root, group);
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base, { withFileTypes: true })) {
      if (entry.isDirectory() && existsSync(join(base, entry.name, 'package.json'))) {
        dirs.push(join(base, entry.name));
      }
    }
  }
  return dirs;
}

/** The entry points a consumer imports: every key of `exports` but `./package.json`. */
function entryPoints(manifest: Manifest): string[] {
  if (manifest.exports === undefined) return [];
  if (typeof manifest.exports === 'string') return [manifest.name];
  return Object.keys(manifest.exports)
    .filter((key) => key !== './package.json' && !key.includes('*'))
    .map((key) => (key === '.' ? manifest.name : `${manifest.name}/${key.slice(2)}`));
}

/** A consumer project with the tarball unpacked in its node_modules and the package's dependencies linked beside it. */
function consumer(dir: string, manifest: Manifest, tgz: string, imports: string[]): string {
  const project = join(work, `consumer-${manifest.name.replace(/\W/g, '_')}`);
  const modules = join(project, 'node_modules');
  // Unpacked inside the project (not linked), so that its imports resolve from its node_modules.
  mkdirSync(join(modules, manifest.name), { recursive: true });
  execFileSync('tar', ['xzf', tgz, '-C', join(modules, manifest.name), '--strip-components=1']);
  for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
    mkdirSync(dirname(join(modules, dep)), { recursive: true });
    symlinkSync(join(dir, 'node_modules', dep), join(modules, dep), 'dir');
  }
  writeFileSync(join(project, 'package.json'), '{ "type": "module", "private": true }\n');
  for (const environment of environmentsOf(manifest)) {
    writeFileSync(
      join(project, `${environment}.ts`),
      `${importsIn(environment, imports)
        .map((spec, i) => `export * as entry${i} from '${spec}';`)
        .join('\n')}\n`,
    );
  }
  // A Node consumer has @types/node; take the version the package itself was built against.
  const nodeTypes = [dir, root].map((base) => join(base, 'node_modules', '@types', 'node')).find(existsSync);
  if (nodeTypes) {
    mkdirSync(join(modules, '@types'), { recursive: true });
    symlinkSync(nodeTypes, join(modules, '@types', 'node'), 'dir');
  }
  for (const environment of environmentsOf(manifest)) {
    const runtime =
      environment === 'node'
        ? { lib: ['ES2024'], types: ['node'] }
        : { lib: ['ES2024', 'DOM', 'DOM.Iterable'], types: [] };
    for (const resolution of RESOLUTIONS) {
      const module =
        resolution === 'node16'
          ? { module: 'node16', moduleResolution: 'node16' }
          : { module: 'preserve', moduleResolution: 'bundler' };
      writeFileSync(
        join(project, `tsconfig.${environment}.${resolution}.json`),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            skipLibCheck: false,
            noEmit: true,
            target: 'ES2023',
            ...runtime,
            ...module,
          },
          files: [`${environment}.ts`],
        }),
      );
    }
  }
  return project;
}

function checkPackage(dir: string): void {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
  const name = manifest.name;
  report(
    name,
    'publishConfig.access is "public"',
    manifest.publishConfig?.access === 'public'
      ? undefined
      : `${relative(root, dir)}/package.json needs "publishConfig": { "access": "public" } (or "private": true).`,
  );
  const missing = ['README.md', 'LICENSE'].filter((file) => !existsSync(join(dir, file)));
  report(name, 'has a README and a LICENSE', missing.length ? `missing: ${missing.join(', ')}` : undefined);

  if (!existsSync(join(dir, 'dist'))) {
    report(name, 'is built', `${relative(root, dir)}/dist is missing: run \`pnpm build\` first.`);
    return;
  }
  const packDir = join(work, name.replace(/\W/g, '_'));
  mkdirSync(packDir, { recursive: true });
  const packFailure = run('pnpm', ['pack', '--pack-destination', packDir], dir);
  const tarball = readdirSync(packDir).find((file) => file.endsWith('.tgz'));
  report(name, 'pnpm pack', packFailure ?? (tarball ? undefined : 'no tarball written'));
  if (!tarball) return;
  const tgz = join(packDir, tarball);

  const entries = execFileSync('tar', ['tzf', tgz], { encoding: 'utf8' }).trim().split('\n');
  const stray = entries.filter(
    (entry) => !/^package\/(dist\/.+|package\.json|README\.md|LICENSE)$/.test(entry),
  );
  report(
    name,
    `tarball holds only dist, README and LICENSE (${entries.length} files)`,
    stray.length ? `also: ${stray.join(', ')}` : undefined,
  );

  report(name, 'publint --strict', run('publint', ['run', tgz, '--strict'], root));

  const imports = entryPoints(manifest);
  if (imports.length === 0) {
    console.log(`     ${name} has no exports (a command only): no types to check`);
    return;
  }
  report(
    name,
    'attw --profile esm-only',
    run('attw', [tgz, '--profile', 'esm-only', '--no-definitely-typed', '--no-color', '--no-emoji'], root),
  );

  const project = consumer(dir, manifest, tgz, imports);
  for (const environment of environmentsOf(manifest)) {
    for (const resolution of RESOLUTIONS) {
      report(
        name,
        `a ${environment} consumer's tsc resolves and checks ${importsIn(environment, imports).join(', ')} under ${resolution} (skipLibCheck off)`,
        run('tsc', ['-p', `tsconfig.${environment}.${resolution}.json`], project),
      );
    }
  }
}

try {
  const published = workspacePackages().filter(
    (dir) => (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest).private !== true,
  );
  if (published.length === 0) report('workspace', 'at least one published package', 'none found');
  for (const dir of published) checkPackage(dir);
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`packages: ${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
