import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Bom, packageBom, workspaceBom } from './release-artifacts.ts';

const root = new URL('../../../', import.meta.url);

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
}

const manifestOf = (dir: string): Manifest =>
  JSON.parse(readFileSync(new URL(`${dir}/package.json`, root), 'utf8')) as Manifest;

/** The workspace catalog's versions (pnpm-workspace.yaml). */
const catalog = new Map(
  [
    ...readFileSync(new URL('pnpm-workspace.yaml', root), 'utf8').matchAll(/^ {2}"?([^":\s]+)"?: (\S+)$/gm),
  ].map(([, name, version]) => [name!, version!]),
);

const WORKSPACE_DIRS: Record<string, string> = {
  '@vaultline/protocol': 'packages/protocol',
  '@vaultline/cli': 'apps/cli',
  '@vaultline/sealer': 'packages/sealer',
  '@vaultline/store': 'packages/store',
};

/**
 * What a package's SBOM must list, from package.json alone: each runtime dependency at the version
 * its specifier names (the catalog's, or the workspace package's), and those of its workspace
 * dependencies, transitively.
 */
function expectedRuntime(dir: string, into = new Map<string, string>()): Map<string, string> {
  for (const [name, spec] of Object.entries(manifestOf(dir).dependencies ?? {})) {
    if (spec.startsWith('workspace:')) {
      const depDir = WORKSPACE_DIRS[name];
      if (depDir === undefined) throw new Error(`add ${name}'s folder to WORKSPACE_DIRS`);
      into.set(name, manifestOf(depDir).version);
      expectedRuntime(depDir, into);
    } else {
      into.set(name, spec === 'catalog:' ? catalog.get(name)! : spec);
    }
  }
  return into;
}

const listed = (sbom: Bom) =>
  new Set(
    sbom.components.map((component) => decodeURIComponent(String(component.purl)).replace(/^pkg:npm\//, '')),
  );

describe('the release SBOMs', () => {
  let bom: Bom;
  beforeAll(() => {
    // cdxgen over the whole lockfile: about a minute on a loaded machine.
    bom = workspaceBom();
  }, 600_000);

  // `deep`: some dependency of the package has dependencies of its own (the core's have none).
  it.each([
    ['@vaultline/protocol', 'packages/protocol', false],
    ['@vaultline/cli', 'apps/cli', true],
  ])(
    'lists every runtime dependency of %s at its locked version, and names the package',
    (name, dir, deep) => {
      const sbom = packageBom(bom, name, false);
      expect(sbom).toMatchObject({
        bomFormat: 'CycloneDX',
        metadata: { component: { name, version: manifestOf(dir).version } },
      });
      const components = listed(sbom);
      const expected = expectedRuntime(dir);
      expect(expected.size).toBeGreaterThan(0);
      for (const [dep, version] of expected)
        expect(components, `${name} → ${dep}`).toContain(`${dep}@${version}`);
      // The dependencies' own dependencies come from the lockfile: the SBOM holds more than the roots.
      if (deep) expect(components.size).toBeGreaterThan(expected.size);
      else expect(components.size).toBe(expected.size);
      // Tools and test frameworks are not shipped.
      for (const tool of ['vitest', 'typescript', '@biomejs/biome']) {
        expect([...components].some((component) => component.startsWith(`${tool}@`))).toBe(false);
      }
    },
  );
});
