/**
 * Regenerates `docs/openapi.json` and the endpoint lists of the README and `docs/api.md` from the
 * endpoint table, and the table of the teampass profile's differences in `docs/api.md`:
 * `pnpm --filter @vaultline/protocol docs:generate`.
 *
 * @module
 */

import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createOpenApiDocument } from '../src/legacy/openapi.ts';
import {
  LIST_FILES,
  OPENAPI_FILE,
  PROFILE_FILE,
  REPO_ROOT,
  withEndpointList,
  withProfileTable,
} from './docs.ts';

const openapi = join(REPO_ROOT, OPENAPI_FILE);
await writeFile(openapi, `${JSON.stringify(createOpenApiDocument(), null, 2)}\n`);
// Written as Biome formats it, so that `biome check .` stays clean.
execFileSync('biome', ['format', '--write', openapi], { cwd: REPO_ROOT, stdio: 'inherit' });
console.log(`wrote ${OPENAPI_FILE}`);

for (const file of LIST_FILES) {
  const path = join(REPO_ROOT, file);
  const before = await readFile(path, 'utf8');
  const after = withEndpointList(before, file);
  if (after !== before) await writeFile(path, after);
  console.log(after === before ? `${file} is up to date` : `wrote the endpoint list of ${file}`);
}

const profiles = join(REPO_ROOT, PROFILE_FILE);
const withoutTable = await readFile(profiles, 'utf8');
const withTable = withProfileTable(withoutTable, PROFILE_FILE);
if (withTable !== withoutTable) await writeFile(profiles, withTable);
console.log(
  withTable === withoutTable
    ? `the profile table of ${PROFILE_FILE} is up to date`
    : `wrote the profile table of ${PROFILE_FILE}`,
);
