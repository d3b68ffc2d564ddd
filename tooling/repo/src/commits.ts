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
  const log = execFileSync('git', ['log', '--format=%h%x00%s', `${since}..HEAD`], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return log
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [commit = '', subject = ''] = line.split('\0');
      return { commit, subject, length: [...subject].length };
    })
    .filter(({ length }) => length > MAX_SUBJECT_LENGTH);
}
