/**
 * `pnpm release:artifacts [--out DIR] [--sbom-only]`: what a release carries besides its
 * packages, so that users can verify them (CONTRIBUTING.md, "Verifying a release"):
 *
 * - a CycloneDX SBOM per artifact (`<artifact>.cdx.json`): the published packages, the VS Code
 *   extension, the GitHub Action's bundle and the two container images. One cdxgen run over the
 *   lockfile gives the workspace's graph; each SBOM is the part of it the artifact ships: its
 *   runtime dependencies (`dependencies` of its package.json, workspace packages followed through
 *   theirs), with everything they depend on in the lockfile. A bundle (the extension, the Action)
 *   ships what it bundles: its runtime dependencies and the devDependencies that are not tools;
 * - the artifacts themselves, after `pnpm build`: the packed tarballs of the published packages
 *   (`pnpm pack`), the extension's `.vsix`, the Action's `index.mjs`;
 * - `SHA256SUMS`, in `sha256sum -c` format, over every file above.
 *
 * The images are built from the SBOMs' checksums (`--build-arg SBOM_SHA256=…`, see the
 * Containerfile), which they carry as a label.
 *
 * @module
 */

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

interface Manifest {
  name: string;
  version: string;
  description?: string;
  license?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

interface Artifact {
  /** The file name stem: `<stem>.cdx.json`. */
  readonly stem: string;
  /** The workspace folder of the package it is made from. */
  readonly dir: string;
  /** Whether it bundles its dependencies (then devDependencies that are not tools count). */
  readonly bundle: boolean;
  /** Makes the artifact's file(s) in `out`, after `pnpm build`. */
  readonly make?: (out: string) => void;
}

/** devDependencies of a bundle that are tools, not shipped code. */
const TOOLS =
  /^(@types\/|@vaultline\/(repo|tsconfig|vault-server)$|@vscode\/(test-electron|vsce)$|esbuild$|mocha$|playwright-core$|typescript$|vitest$|@vitest\/)/;

const pnpm = (args: string[]) =>
  execFileSync('pnpm', args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });

const ARTIFACTS: readonly Artifact[] = [
  {
    stem: 'vaultline-protocol',
    dir: 'packages/protocol',
    bundle: false,
    make: (out) => pnpm(['--filter', '@vaultline/protocol', 'pack', '--pack-destination', out]),
  },
  {
    stem: 'vaultline-cli',
    dir: 'apps/cli',
    bundle: false,
    make: (out) => pnpm(['--filter', '@vaultline/cli', 'pack', '--pack-destination', out]),
  },
  {
    stem: 'vaultline-vscode',
    dir: 'apps/vscode-extension',
    bundle: true,
    make: (out) => {
      pnpm(['--filter', 'vaultline-vscode', 'package']);
      const dir = join(root, 'apps/vscode-extension');
      for (const name of readdirSync(dir).filter((file) => file.endsWith('.vsix'))) {
        copyFileSync(join(dir, name), join(out, name));
      }
    },
  },
  {
    stem: 'vaultline-github-action',
    dir: 'apps/github-action',
    bundle: true,
    make: (out) =>
      copyFileSync(join(root, 'apps/github-action/dist/index.mjs'), join(out, 'github-action-index.mjs')),
  },
  { stem: 'vault-server-image', dir: 'apps/vault-server', bundle: false },
  { stem: 'slack-bot-image', dir: 'apps/slack-bot', bundle: false },
];

export interface Component {
  'bom-ref'?: string;
  name: string;
  group?: string;
  version?: string;
  purl?: string;
  [key: string]: unknown;
}

export interface Bom {
  bomFormat: string;
  specVersion: string;
  serialNumber?: string;
  version: number;
  metadata: { timestamp?: string; tools?: unknown; component?: Component; [key: string]: unknown };
  components: Component[];
  dependencies: { ref: string; dependsOn?: string[] }[];
  [key: string]: unknown;
}

/** The workspace's packages by name, with their folders. */
function workspacePackages(): Map<string, { dir: string; manifest: Manifest }> {
  const found = new Map<string, { dir: string; manifest: Manifest }>();
  for (const group of ['apps', 'packages', 'tooling']) {
    for (const name of readdirSync(join(root, group))) {
      try {
        const manifest = JSON.parse(
          readFileSync(join(root, group, name, 'package.json'), 'utf8'),
        ) as Manifest;
        found.set(manifest.name, { dir: `${group}/${name}`, manifest });
      } catch {
        // a folder without a package.json is no package
      }
    }
  }
  return found;
}

const refOf = (name: string, version: string) => `pkg:npm/${name}@${version}`;

/**
 * Runs cdxgen over the lockfile: the workspace's whole graph, offline (no install, no licence
 * look-ups).
 *
 * @returns The BOM.
 */
export function workspaceBom(): Bom {
  const dir = mkdtempSync(join(tmpdir(), 'vaultline-sbom-'));
  try {
    const file = join(dir, 'bom.json');
    execFileSync(
      'pnpm',
      [
        'exec',
        'cdxgen',
        '--type',
        'js',
        '--no-install-deps',
        '--no-recurse',
        '--spec-version',
        '1.6',
        '-o',
        file,
        root,
      ],
      {
        cwd: root,
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, FETCH_LICENSE: 'false', CDXGEN_TELEMETRY: 'false', CDXGEN_NO_BANNER: 'true' },
      },
    );
    return JSON.parse(readFileSync(file, 'utf8')) as Bom;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The SBOM of one package: its runtime closure in the workspace's graph.
 *
 * @param bom The workspace's BOM.
 * @param name The package.
 * @param bundle Whether it bundles (then its devDependencies that are not tools count).
 * @returns Its BOM.
 */
export function packageBom(bom: Bom, name: string, bundle: boolean): Bom {
  const workspace = workspacePackages();
  const graph = new Map(bom.dependencies.map((entry) => [entry.ref, entry.dependsOn ?? []]));
  const byRef = new Map(
    bom.components.map((component) => [component['bom-ref'] ?? component.purl, component]),
  );
  const roots = (manifest: Manifest, withBundled: boolean) => [
    ...Object.keys(manifest.dependencies ?? {}),
    ...(withBundled ? Object.keys(manifest.devDependencies ?? {}).filter((dep) => !TOOLS.test(dep)) : []),
  ];
  const refs = new Set<string>();
  const components: Component[] = [];
  const edges: { ref: string; dependsOn: string[] }[] = [];
  const visitWorkspace = (pkgName: string, withBundled: boolean): string => {
    const pkg = workspace.get(pkgName)!;
    const ref = refOf(pkgName, pkg.manifest.version);
    if (refs.has(ref)) return ref;
    refs.add(ref);
    const dependsOn = roots(pkg.manifest, withBundled).map((dep) => visitDependency(pkg.manifest, dep));
    edges.push({ ref, dependsOn: dependsOn.filter((dep): dep is string => dep !== undefined) });
    if (pkgName !== name) {
      components.push({
        'bom-ref': ref,
        type: 'library',
        name: pkgName,
        version: pkg.manifest.version,
        purl: ref,
        ...(pkg.manifest.license ? { licenses: [{ license: { id: pkg.manifest.license } }] } : {}),
      });
    }
    return ref;
  };
  /** A dependency of a workspace package, by the version the lockfile resolved for it. */
  const visitDependency = (manifest: Manifest, dep: string): string | undefined => {
    if (workspace.has(dep)) return visitWorkspace(dep, false);
    const owner = refOf(manifest.name, manifest.version);
    const ref = graph.get(owner)?.find((candidate) => candidate.startsWith(`pkg:npm/${dep}@`));
    if (ref === undefined) throw new Error(`${manifest.name}: the lockfile's graph has no ${dep}`);
    visitThirdParty(ref);
    return ref;
  };
  const visitThirdParty = (ref: string) => {
    if (refs.has(ref)) return;
    refs.add(ref);
    const component = byRef.get(ref);
    if (component) components.push(component);
    const dependsOn = graph.get(ref) ?? [];
    edges.push({ ref, dependsOn });
    for (const next of dependsOn) visitThirdParty(next);
  };
  visitWorkspace(name, bundle);
  const manifest = workspace.get(name)!.manifest;
  const ref = refOf(name, manifest.version);
  return {
    bomFormat: 'CycloneDX',
    specVersion: bom.specVersion,
    serialNumber: `urn:uuid:${crypto.randomUUID()}`,
    version: 1,
    metadata: {
      ...(bom.metadata.timestamp ? { timestamp: bom.metadata.timestamp } : {}),
      ...(bom.metadata.tools ? { tools: bom.metadata.tools } : {}),
      component: {
        'bom-ref': ref,
        type: 'application',
        name,
        version: manifest.version,
        purl: ref,
        ...(manifest.description ? { description: manifest.description } : {}),
      },
    },
    components: components.sort((a, b) => String(a.purl).localeCompare(String(b.purl))),
    dependencies: edges.sort((a, b) => a.ref.localeCompare(b.ref)),
  };
}

/** Writes `SHA256SUMS` over every file of `out` but itself. */
function writeChecksums(out: string): void {
  const lines = readdirSync(out)
    .filter((name) => name !== 'SHA256SUMS')
    .sort()
    .map(
      (name) =>
        `${createHash('sha256')
          .update(readFileSync(join(out, name)))
          .digest('hex')}  ${name}`,
    );
  writeFileSync(join(out, 'SHA256SUMS'), `${lines.join('\n')}\n`);
}

function main(argv: string[]): void {
  const outIndex = argv.indexOf('--out');
  const out = resolve(root, outIndex === -1 ? 'release-artifacts' : argv[outIndex + 1]!);
  const sbomOnly = argv.includes('--sbom-only');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const bom = workspaceBom();
  const workspace = workspacePackages();
  for (const artifact of ARTIFACTS) {
    const name = [...workspace].find(([, pkg]) => pkg.dir === artifact.dir)![0];
    writeFileSync(
      join(out, `${artifact.stem}.cdx.json`),
      `${JSON.stringify(packageBom(bom, name, artifact.bundle), null, 2)}\n`,
    );
    if (!sbomOnly) artifact.make?.(out);
  }
  writeChecksums(out);
  console.log(`release artifacts in ${out}:`);
  for (const name of readdirSync(out).sort()) console.log(`  ${basename(name)}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
