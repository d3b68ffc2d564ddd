import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GALAXY_FILE, galaxyVersion, packageVersion, withGalaxyVersion } from '../version.ts';

describe("the collection's version", () => {
  it('is the package version in galaxy.yml', () => {
    expect(galaxyVersion(readFileSync(GALAXY_FILE, 'utf8'))).toBe(packageVersion());
  });

  it('is written into galaxy.yml without touching the rest', () => {
    const galaxy = 'namespace: vaultline\nname: vault\nversion: 0.1.0\ndependencies:\n  version: keep\n';
    expect(withGalaxyVersion(galaxy, '0.2.0')).toBe(galaxy.replace('version: 0.1.0', 'version: 0.2.0'));
    expect(galaxyVersion(withGalaxyVersion(galaxy, '1.0.0-rc.1'))).toBe('1.0.0-rc.1');
    expect(() => withGalaxyVersion('namespace: vaultline\n', '0.2.0')).toThrow(/no top-level version/);
  });
});
