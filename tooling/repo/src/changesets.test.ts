import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkChangesetNames } from './changesets.ts';

const root = mkdtempSync(join(tmpdir(), 'vaultline-changesets-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A repository of these files. */
function repoOf(files: Record<string, string>) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return { root, files: Object.keys(files) };
}

const HEAD = '---\n"@vaultline/protocol": minor\n---\n\n';
/** A name nothing has, spelled in parts so that this file does not have it either. */
const GONE = ['acting', 'LoginOf'].join('');

describe('checkChangesetNames', () => {
  it('names the identifiers and package entries no source file has, unless the sentence says they are gone', () => {
    const repo = repoOf({
      'packages/protocol/package.json': JSON.stringify({
        name: '@vaultline/protocol',
        exports: { '.': './dist/index.js', './wire': './dist/wire.js' },
      }),
      'packages/protocol/src/index.ts':
        'export function createVaultClient() {}\nexport const MAX_ITEMS = 1;\n',
      '.changeset/stale.md': `${HEAD}\`createVaultClient\`, \`MAX_ITEMS\` and \`${GONE}\` resolve references; \`@vaultline/protocol/node\` holds the cache, \`@vaultline/protocol/wire\` the rest.\n`,
      '.changeset/honest.md': `${HEAD}No longer exported: \`${GONE}\`. \`@vaultline/protocol/node\` is gone. \`oldThing(x)\` → \`createVaultClient\`; \`readItems\` → \`getMany\` too. A \`minor\` word.\n`,
    });
    expect(checkChangesetNames(repo).map((problem) => [problem.where, problem.target])).toEqual([
      ['.changeset/stale.md', GONE],
      ['.changeset/stale.md', '@vaultline/protocol/node'],
      ['.changeset/honest.md', 'getMany'],
    ]);
  });
});
