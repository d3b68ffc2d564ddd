/**
 * Commit subjects: at most {@link MAX_SUBJECT_LENGTH} characters, details in the body
 * (CONTRIBUTING.md, "Commits"). Landed history is never rewritten, so the check starts after
 * {@link SUBJECTS_CHECKED_AFTER}, the last commit before the rule was checked.
 *
 * @module
 */

import { execFileSync } from 'node:child_process';
import { REPO_ROOT } from './repo-files.ts';

/** The longest subject line a commit may have. */
export const MAX_SUBJECT_LENGTH = 72;

/** Commits after this one are checked; it and its ancestors had landed when the check came. */
export const SUBJECTS_CHECKED_AFTER = '47314c6b4ab887e89169e617b939424267b3fc69';

/**
 * Commits whose subject is too long but that cannot be rewritten (history is never rewritten):
 * each named with the reason. An entry is added only with the lead's word.
 */
export const KNOWN_LONG_SUBJECTS: ReadonlySet<string> = new Set([
  // Issue #31 (branch vscode): 79 and 85 characters, committed before the check was run locally.
  'be8c2f6f0178f323bc8fa391a7c7d58d87439c0b',
  '245c17c57bca05a4f0b1a6d2803a90a449409d43',
]);

/** A commit whose subject is too long. */
export interface LongSubject {
  /** The commit, abbreviated. */
  commit: string;
  /** Its subject's length, in characters. */
  length: number;
  /** The subject. */
  subject: string;
}

/**
 * The commits after `since` (up to HEAD) whose subject is longer than {@link MAX_SUBJECT_LENGTH}.
 *
 * @param root The repository.
 * @param since The last commit not checked.
 * @returns Those commits, newest first.
 * @throws {Error} When `since` is not in this clone's history (a shallow clone).
 */
export function longSubjects(
  root: string = REPO_ROOT,
  since: string = SUBJECTS_CHECKED_AFTER,
): LongSubject[] {
  try {
    execFileSync('git', ['merge-base', '--is-ancestor', since, 'HEAD'], { cwd: root, stdio: 'ignore' });
  } catch {
    throw new Error(`commit ${since.slice(0, 7)} is not in this clone's history: fetch the full history`);
  }
  const log = execFileSync('git', ['log', '--format=%H%x00%s', `${since}..HEAD`], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return log
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [hash = '', subject = ''] = line.split('\0');
      return { hash, commit: hash.slice(0, 7), subject, length: [...subject].length };
    })
    .filter(({ hash, length }) => length > MAX_SUBJECT_LENGTH && !KNOWN_LONG_SUBJECTS.has(hash))
    .map(({ commit, subject, length }) => ({ commit, subject, length }));
}
