/**
 * `pnpm bench:docs`: rebuilds `docs/benchmarks.md` from the records in `docs/benchmarks/`.
 * `--check` rebuilds nothing and exits 1 when the page differs from what the records give.
 *
 * @module
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCHMARKS_DOC, readBenchmarkRecords, renderBenchmarks, writeBenchmarksDoc } from './benchmarks.ts';
import { REPO_ROOT } from './repo-files.ts';

if (process.argv.includes('--check')) {
  const current = readFileSync(join(REPO_ROOT, BENCHMARKS_DOC), 'utf8');
  if (current !== renderBenchmarks(readBenchmarkRecords())) {
    process.stderr.write(`${BENCHMARKS_DOC} is out of date: run pnpm bench:docs\n`);
    process.exitCode = 1;
  }
} else {
  process.stdout.write(`wrote ${writeBenchmarksDoc()}\n`);
}
