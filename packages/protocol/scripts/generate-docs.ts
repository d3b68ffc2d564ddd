/**
 * Regenerates `docs/openapi.json` from the endpoint table, and every block of `GENERATED_BLOCKS`
 * (`docs.ts`) from its table: `pnpm --filter @vaultline/protocol docs:generate`.
 *
 * @module
 */

import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createOpenApiDocument } from '../src/legacy/openapi.ts';
import { GENERATED_BLOCKS, OPENAPI_FILE, REPO_ROOT } from './docs.ts';

const openapi = join(REPO_ROOT, OPENAPI_FILE);
await writeFile(openapi, `${JSON.stringify(createOpenApiDocument(), null, 2)}\n`);
// Written as Biome formats it, so that `biome check .` stays clean.
execFileSync('biome', ['format', '--write', openapi], { cwd: REPO_ROOT, stdio: 'inherit' });
console.log(`wrote ${OPENAPI_FILE}`);

for (const block of GENERATED_BLOCKS) {
  const path = join(REPO_ROOT, block.file);
  const before = await readFile(path, 'utf8');
  const after = block.apply(before);
  if (after !== before) await writeFile(path, after);
  console.log(
    after === before
      ? `${block.what} of ${block.file} is up to date`
      : `wrote ${block.what} of ${block.file}`,
  );
}
