/**
 * Builds the collection's tarball into dist/ with `ansible-galaxy collection build`, after
 * checking that galaxy.yml carries the version changesets gave package.json.
 *
 * @module
 */

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const { version } = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const galaxy = readFileSync(new URL('galaxy.yml', import.meta.url), 'utf8');
const declared = /^version:\s*(\S+)\s*$/m.exec(galaxy)?.[1];
if (declared !== version) {
  console.error(
    `galaxy.yml says version ${declared}, package.json ${version}: set galaxy.yml's version to ${version}.`,
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
