import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lastRelease } from './release.ts';
import { REPO_ROOT } from './repo-files.ts';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('lastRelease', () => {
  it('is the commit written in tooling/repo/last-release.json, one of this repository', () => {
    const { commit, name } = lastRelease();
    expect(name).not.toBe('');
    expect(execFileSync('git', ['cat-file', '-t', commit], { cwd: REPO_ROOT, encoding: 'utf8' }).trim()).toBe(
      'commit',
    );
  });

  it('is the commit BENCH_RELEASE names, resolved by git, for one run', () => {
    vi.stubEnv('BENCH_RELEASE', 'HEAD');
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    expect(lastRelease()).toEqual({ commit: head, name: 'HEAD' });
  });

  it('refuses a BENCH_RELEASE that names no commit', () => {
    vi.stubEnv('BENCH_RELEASE', 'no-such-revision-here');
    expect(() => lastRelease()).toThrow();
  });
});
