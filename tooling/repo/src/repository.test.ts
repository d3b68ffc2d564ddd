import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BENCHMARKS_DOC, GENERATE_COMMAND, readBenchmarkRecords, renderBenchmarks } from './benchmarks.ts';
import { checkChangesetNames } from './changesets.ts';
import { longSubjects, MAX_SUBJECT_LENGTH } from './commits.ts';
import { checkMarkdownLinks, checkSeeTags, describeProblems, openRepository } from './links.ts';
import { checkNodeStatement, readNodeStatement } from './node-versions.ts';
import { symbolicLinks } from './repo-files.ts';
import { checkStandalone } from './standalone.ts';

const repo = openRepository();

describe('the repository', () => {
  it('is read whole: its Markdown and source files, and nothing from node_modules or dist', () => {
    expect(repo.files).toContain('README.md');
    expect(repo.files).toContain('packages/protocol/src/legacy/endpoints.ts');
    expect(repo.files.filter((path) => /(^|\/)(node_modules|dist)\//.test(path))).toEqual([]);
  });

  it('has no broken relative link in any Markdown file', () => {
    const problems = checkMarkdownLinks(repo);
    expect(problems, describeProblems(problems)).toEqual([]);
  });

  it('has no @see tag naming a path that does not resolve', () => {
    const problems = checkSeeTags(repo);
    expect(problems, describeProblems(problems)).toEqual([]);
  });

  it('has changesets that name only what exists', () => {
    const problems = checkChangesetNames(repo);
    expect(problems, describeProblems(problems)).toEqual([]);
  });

  it('points nowhere outside itself (no ../shared/)', () => {
    const problems = checkStandalone(repo);
    expect(problems, describeProblems(problems)).toEqual([]);
  });

  it('states one Node version: .node-version, .nvmrc and every engines.node agree', () => {
    expect(checkNodeStatement(readNodeStatement(repo))).toEqual([]);
  });

  it('holds no symbolic links (they break on checkouts without symlinks)', () => {
    expect(symbolicLinks(repo.root)).toEqual([]);
  });

  it('has tsconfig.base.json at its root, the one base tooling/tsconfig builds on', () => {
    const read = (path: string) => JSON.parse(readFileSync(join(repo.root, path), 'utf8'));
    const base = read('tsconfig.base.json');
    expect(base.compilerOptions).toMatchObject({ strict: true, verbatimModuleSyntax: true });
    const shared = read('tooling/tsconfig/base.json');
    // through the link tooling/tsconfig/node_modules/vaultline to the root: a relative path would
    // resolve from each package's node_modules link, where Vite reads it without following it
    expect(shared.extends).toBe('vaultline/tsconfig.base.json');
    expect(shared.compilerOptions, 'tooling/tsconfig/base.json writes no setting of its own').toBeUndefined();
    for (const kind of ['app', 'library', 'bundled']) {
      expect(read(`tooling/tsconfig/${kind}.json`).extends).toBe('./base.json');
    }
  });

  it(`has commit subjects of at most ${MAX_SUBJECT_LENGTH} characters since the rule was checked`, () => {
    expect(longSubjects(repo.root)).toEqual([]);
  });

  it("has docs/benchmarks.md as the benches' records give it", () => {
    const page = readFileSync(join(repo.root, BENCHMARKS_DOC), 'utf8');
    expect(page, `${BENCHMARKS_DOC} is out of date: run ${GENERATE_COMMAND}`).toBe(
      renderBenchmarks(readBenchmarkRecords(repo.root)),
    );
  });
});
