import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkMarkdownLinks, checkSeeTags, describeProblems, type Repository } from './links.ts';
import { checkStandalone } from './standalone.ts';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A repository of the given files, in a temporary directory (inside another one, so that `..` exists). */
function repository(files: Record<string, string>): Repository {
  const outer = mkdtempSync(join(tmpdir(), 'vaultline-links-'));
  made.push(outer);
  writeFileSync(join(outer, 'outside.md'), '# Outside\n');
  const root = join(outer, 'repo');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return { root, files: Object.keys(files).sort() };
}

const spec = '# Spec\n\n## 4. Endpoints\n\n### 4.2 Write endpoints\n\n### 4.3 Read endpoints\n';
/** A `@see` tag, spelled in parts so that this file's own comments stay out of the repository check. */
const see = (rest: string) => ` * @${'see'} ${rest}`;

describe('checkMarkdownLinks', () => {
  it('passes links to existing files, directories and anchors, and leaves URLs alone', () => {
    const repo = repository({
      'docs/spec.md': spec,
      'docs/api.md':
        '[spec](spec.md#42-write-endpoints) [top](#api) [dir](../apps) [web](https://example.com/x.md)\n# API\n',
      'apps/x/README.md': '[api](../../docs/api.md) [root-relative](/docs/spec.md) [mail](mailto:a@b.c)\n',
    });
    expect(checkMarkdownLinks(repo)).toEqual([]);
  });

  it('reports a missing file, a missing anchor and a link out of the repository, with file and line', () => {
    const repo = repository({
      'docs/spec.md': spec,
      'README.md': 'fine\n[gone](docs/protocol.md)\n[anchor](docs/spec.md#9-nothing)\n[out](../outside.md)\n',
    });
    const problems = checkMarkdownLinks(repo);
    expect(describeProblems(problems).split('\n')).toEqual([
      'README.md:2: docs/protocol.md does not exist',
      'README.md:3: docs/spec.md#9-nothing has no heading or anchor #9-nothing',
      'README.md:4: ../outside.md points outside the repository',
    ]);
  });
});

describe('checkSeeTags', () => {
  it('passes paths relative to the file or the root, with sections and anchors that exist', () => {
    const repo = repository({
      'docs/spec.md': spec,
      'packages/p/src/a.ts': [
        '/**',
        see('../../../docs/spec.md §4.2, §4.3'),
        see('docs/spec.md §4'),
        see('../../../docs/spec.md#42-write-endpoints'),
        see('https://example.com/x.md'),
        see('SomeSymbol'),
        ' */',
      ].join('\n'),
    });
    expect(checkSeeTags(repo)).toEqual([]);
  });

  it('reports a missing file, a missing section, a missing anchor and a path out of the repository', () => {
    const repo = repository({
      'docs/spec.md': spec,
      'packages/p/src/a.ts': [
        '/**',
        see('../../../docs/protocol.md'),
        see('../../../docs/spec.md §4.2, §4.4'),
        see('../../../docs/spec.md#5-authentication'),
        see('../../../../outside.md'),
        ' */',
      ].join('\n'),
    });
    expect(describeProblems(checkSeeTags(repo)).split('\n')).toEqual([
      'packages/p/src/a.ts:2: ../../../docs/protocol.md does not exist',
      'packages/p/src/a.ts:3: ../../../docs/spec.md has no section §4.4',
      'packages/p/src/a.ts:4: ../../../docs/spec.md#5-authentication has no heading or anchor #5-authentication',
      'packages/p/src/a.ts:5: ../../../../outside.md points outside the repository',
    ]);
  });
});

describe('checkStandalone', () => {
  it('reports a line that points into the reference material beside the repository', () => {
    const pointer = ['..', 'shared', 'notes', 'teampass-behaviour.md'].join('/');
    const repo = repository({
      'a.mjs': `// fine\n// as written in ${pointer}\n`,
      'b.md': 'shared/ folders of our own are fine\n',
    });
    expect(checkStandalone(repo).map((problem) => problem.where)).toEqual(['a.mjs:2']);
  });
});
