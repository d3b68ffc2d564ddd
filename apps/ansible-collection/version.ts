/**
 * The collection's version is its package's: changesets bumps `package.json`, and `pnpm
 * version-packages` then runs this to write the same version into `galaxy.yml`, which
 * `ansible-galaxy` reads. `build.ts` refuses to build when the two differ.
 *
 * @module
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const VERSION_LINE = /^version:[ \t]*(\S+)[ \t]*$/m;

/** The version `galaxy.yml`'s text declares, if any. */
export const galaxyVersion = (galaxy: string): string | undefined => VERSION_LINE.exec(galaxy)?.[1];

/** `galaxy.yml`'s text with its version set, the rest untouched. */
export function withGalaxyVersion(galaxy: string, version: string): string {
  if (!VERSION_LINE.test(galaxy)) throw new Error('galaxy.yml has no top-level version line.');
  return galaxy.replace(VERSION_LINE, `version: ${version}`);
}

/** The version changesets gave the package. */
export const packageVersion = (): string =>
  (JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8')) as { version: string }).version;

export const GALAXY_FILE = new URL('galaxy.yml', import.meta.url);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(GALAXY_FILE, withGalaxyVersion(readFileSync(GALAXY_FILE, 'utf8'), packageVersion()));
}
