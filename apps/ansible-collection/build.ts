/**
 * Builds the collection's tarball into dist/ with `ansible-galaxy collection build`, after
 * checking that galaxy.yml carries the version changesets gave package.json (`version.ts`).
 *
 * @module
 */

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GALAXY_FILE, galaxyVersion, packageVersion } from './version.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const version = packageVersion();
const declared = galaxyVersion(readFileSync(GALAXY_FILE, 'utf8'));
if (declared !== version) {
  console.error(
    `galaxy.yml says version ${declared}, package.json ${version}: run pnpm version-packages (or node version.ts).`,
  );
  process.exit(1);
}
mkdirSync(new URL('dist', import.meta.url), { recursive: true });
try {
  execFileSync('ansible-galaxy', ['collection', 'build', here, '--output-path', `${here}dist`, '--force'], {
    stdio: 'inherit',
  });
} catch (error) {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
    console.error(
      'ansible-galaxy is not installed: apt-get install ansible-core (or pip install ansible-core).',
    );
  }
  process.exit(1);
}
