/**
 * The last release, built beside the current code for the benches: `pnpm bench` measures it in
 * the same run and records the ratio, so a change that makes a hot path dearer shows in the note
 * that introduces it.
 *
 * The last release is the commit written in `tooling/repo/last-release.json` (the repository has no
 * tags; the release commit writes it, see CONTRIBUTING.md), or `BENCH_RELEASE=<commit>` for one
 * run. Its tree is exported with `git archive` into the OS temp dir (nothing is registered in the
 * repository, nothing built lands in the tree), installed from the lockfile of that commit, and
 * the packages a bench needs are built there once; later runs reuse it.
 *
 * @module
 */

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { REPO_ROOT } from './repo-files.ts';

/** Where the last release's commit is written, relative to the repository root. */
export const LAST_RELEASE_FILE = 'tooling/repo/last-release.json';

const LastReleaseSchema = v.object({
  /** The release's commit, 40 hex digits. */
  commit: v.pipe(v.string(), v.regex(/^[0-9a-f]{40}$/)),
  /** What it released, as people call it (`0.1.0`). */
  name: v.pipe(v.string(), v.minLength(1)),
});

/** The last release, built and ready to run. */
export interface BuiltRelease {
  /** Its commit. */
  readonly commit: string;
  /** Its commit, abbreviated as the records show it. */
  readonly short: string;
  /** What it released. */
  readonly name: string;
  /** Its tree, built: `<dir>/apps/vault-server/dist/cli.js` and so on. */
  readonly dir: string;
}

/**
 * Which commit is the last release: `BENCH_RELEASE`, else {@link LAST_RELEASE_FILE}.
 *
 * @param root The repository root.
 * @returns The commit (resolved by git) and its name.
 */
export function lastRelease(root: string = REPO_ROOT): { commit: string; name: string } {
  const recorded = v.parse(
    LastReleaseSchema,
    JSON.parse(readFileSync(join(root, LAST_RELEASE_FILE), 'utf8')),
  );
  const asked = process.env.BENCH_RELEASE;
  if (asked === undefined || asked === '') return recorded;
  const commit = execFileSync('git', ['rev-parse', '--verify', `${asked}^{commit}`], {
    cwd: root,
    encoding: 'utf8',
  }).trim();
  return { commit, name: asked };
}

const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });

/**
 * The last release's tree with `packages` (and what they depend on) built, in the OS temp dir.
 * The first call exports, installs and builds (minutes); later calls find it ready.
 *
 * @param packages The packages the bench runs, e.g. `@vaultline/vault-server`.
 * @param root The repository root.
 * @returns Where it is.
 */
export function buildLastRelease(packages: readonly string[], root: string = REPO_ROOT): BuiltRelease {
  const { commit, name } = lastRelease(root);
  const short = commit.slice(0, 7);
  const dir = join(tmpdir(), `vaultline-release-${short}`);
  const built = join(dir, '.vaultline-built');
  const done = existsSync(built) ? readFileSync(built, 'utf8').split('\n') : [];
  const missing = packages.filter((name) => !done.includes(name));
  if (missing.length === 0) return { commit, short, name, dir };
  process.stderr.write(`building the last release (${name}, ${short}) in ${dir}: ${missing.join(', ')}\n`);
  if (!existsSync(join(dir, 'package.json'))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const archive = join(tmpdir(), `vaultline-release-${short}.tar`);
    run('git', ['archive', '--format=tar', '-o', archive, commit], root);
    run('tar', ['-xf', archive, '-C', dir], root);
    rmSync(archive, { force: true });
    run('pnpm', ['install', '--frozen-lockfile', '--prefer-offline'], dir);
  }
  run('pnpm', ['exec', 'turbo', 'run', 'build', ...missing.map((name) => `--filter=${name}...`)], dir);
  writeFileSync(built, [...done, ...missing].filter(Boolean).join('\n'));
  return { commit, short, name, dir };
}
