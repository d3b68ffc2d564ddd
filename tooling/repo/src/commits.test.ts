import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { longSubjects, MAX_SUBJECT_LENGTH } from './commits.ts';

const dir = mkdtempSync(join(tmpdir(), 'vaultline-commits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], {
    cwd: dir,
    encoding: 'utf8',
  }).trim();
const commit = (message: string) => {
  git('commit', '-q', '--allow-empty', '-m', message);
  return git('rev-parse', 'HEAD');
};

describe('longSubjects', () => {
  git('init', '-q');
  const old = commit(`${'o'.repeat(100)} landed before the rule`);
  commit(`${'é'.repeat(MAX_SUBJECT_LENGTH)}\n\n${'a body line may be as long as it needs to be '.repeat(3)}`);
  commit(`${'x'.repeat(MAX_SUBJECT_LENGTH + 1)}`);

  it('lists only commits after the base whose subject is longer than 72 characters', () => {
    expect(longSubjects(dir, old)).toEqual([
      { commit: expect.stringMatching(/^[0-9a-f]{7,}$/), length: 73, subject: 'x'.repeat(73) },
    ]);
  });

  it('says so when the base is not in the history (a shallow clone)', () => {
    expect(() => longSubjects(dir, '0'.repeat(40))).toThrow(/not in this clone's history/);
  });
});
