/**
 * The `.` entry stays small: every value it exports is used by code outside the package (the apps
 * and the other packages of the repository) or documented in the README for library users. A value
 * added to `src/index.ts` for nobody fails here.
 */

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as entry from '../src/index.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const repoDir = join(packageDir, '..', '..');
const SKIPPED = new Set(['node_modules', 'dist', '.turbo', '.vscode-test', 'coverage']);
/** `import { a, type B, c as d } from '@vaultline/protocol'`, and the same with `export`. */
const FROM_ENTRY = /(?:import|export)\s*(?:type\s*)?\{([^}]*)\}\s*from\s*['"]@vaultline\/protocol['"]/g;

async function sourceFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await sourceFiles(path)));
    else if (/\.(?:m?[jt]s|tsx)$/.test(entry.name)) found.push(path);
  }
  return found;
}

/** The names code outside the package imports from `@vaultline/protocol`, and how many files do. */
async function namesUsedOutside(): Promise<{ names: Set<string>; files: number }> {
  const roots = [join(repoDir, 'apps'), join(repoDir, 'packages')];
  const names = new Set<string>();
  let files = 0;
  for (const root of roots) {
    for (const dir of await readdir(root)) {
      if (join(root, dir) === join(packageDir)) continue;
      for (const file of await sourceFiles(join(root, dir))) {
        const text = await readFile(file, 'utf8');
        let importing = false;
        for (const match of text.matchAll(FROM_ENTRY)) {
          importing = true;
          for (const part of match[1]!.split(',')) {
            const name = part
              .trim()
              .replace(/^type\s+/, '')
              .split(/\s+as\s+/)[0];
            if (name) names.add(name);
          }
        }
        if (importing) files++;
      }
    }
  }
  return { names, files };
}

describe('the . entry', () => {
  it('exports no value that nothing outside the package uses and the README does not document', async () => {
    const { names, files } = await namesUsedOutside();
    // The scan itself works: the apps import the entry from many files.
    expect(files).toBeGreaterThan(50);
    expect(names.has('createVaultClient')).toBe(true);
    const readme = await readFile(join(packageDir, 'README.md'), 'utf8');
    const documented = (name: string) => new RegExp(`\`${name}\\b`).test(readme);
    const forNobody = Object.keys(entry).filter((name) => !names.has(name) && !documented(name));
    expect(forNobody).toEqual([]);
  });
});
