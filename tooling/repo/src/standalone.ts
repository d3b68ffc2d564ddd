/**
 * The repository stands alone: a clone has no `../shared/` beside it, so no file may point into
 * the reference material that lives there on the team's machines (its spec, notes, reference
 * code, TeamPass 3 recordings). The project keeps its own copies in `docs/`.
 *
 * @module
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LinkProblem, Repository } from './links.ts';

/** The folders of the team's reference material. Spelled in parts so this file does not match itself. */
const FOLDERS = ['spec', 'notes', 'reference', 'teampass3', 'hooks'];
const POINTER = new RegExp(`(?:^|[^\\w-])${'shared'}/(?:${FOLDERS.join('|')})/`);

/**
 * Finds lines that point into the reference material outside the repository.
 *
 * @param repo The repository.
 * @returns One problem per line that does; empty when none does.
 */
export function checkStandalone(repo: Repository): LinkProblem[] {
  const problems: LinkProblem[] = [];
  for (const file of repo.files) {
    const bytes = readFileSync(join(repo.root, file));
    if (bytes.includes(0)) continue;
    for (const [index, line] of bytes.toString('utf8').split('\n').entries()) {
      const match = POINTER.exec(line);
      if (match) {
        problems.push({
          where: `${file}:${index + 1}`,
          target: line.slice(match.index, match.index + 60).trim(),
          problem: 'points outside the repository: keep a copy in docs/ and point there',
        });
      }
    }
  }
  return problems;
}
