/**
 * Writes `dist/pglite-template.tar.gz`: the data directory of a cluster just made by PGlite's
 * initdb, which `createPglite` unpacks into an empty data directory (or a new in-memory database)
 * instead of running initdb there. PGlite's initdb runs a second PostgreSQL instance beside the
 * first, with a copy of its memory: about 530 MiB of RSS at the peak even under `--liftoff-only`,
 * where unpacking the template costs a few MiB. Made at build time (`pnpm build`), with the PGlite
 * the package is built with.
 */

import { writeFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_SETTINGS, PGLITE_TEMPLATE_FILE } from '../src/pglite.ts';

const db = await PGlite.create({
  startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS.flatMap((setting) => ['-c', setting])],
});
try {
  await db.query('CHECKPOINT');
  const tarball = await db.dumpDataDir('gzip');
  const target = new URL(`../dist/${PGLITE_TEMPLATE_FILE}`, import.meta.url);
  await writeFile(target, Buffer.from(await tarball.arrayBuffer()));
  process.stdout.write(`wrote dist/${PGLITE_TEMPLATE_FILE} (${tarball.size} bytes)\n`);
} finally {
  await db.close();
}
