import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = import.meta.dirname;

/** Which layers a layer may not import: they run one way, http → store → db/crypto, net below both. */
const FORBIDDEN: Readonly<Record<string, readonly string[]>> = {
  store: ['http', 'cli', 'import'],
  import: ['http', 'cli'],
  db: ['http', 'store', 'import', 'cli', 'crypto'],
  crypto: ['http', 'store', 'import', 'cli', 'db'],
  net: ['http', 'store', 'import', 'cli', 'db', 'crypto'],
};

async function sourceFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await sourceFiles(path)));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

describe('the layers of src', () => {
  it('import one way: nothing below HTTP imports it, db and crypto import no store', async () => {
    const wrong: string[] = [];
    for (const file of await sourceFiles(SRC)) {
      const layer = relative(SRC, file).split('/')[0]!;
      const forbidden = FORBIDDEN[layer];
      if (!forbidden) continue;
      const text = await readFile(file, 'utf8');
      for (const [, target] of text.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
        const imported = relative(SRC, join(file, '..', target!)).split('/')[0]!;
        if (forbidden.includes(imported)) wrong.push(`${relative(SRC, file)} imports ${target}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
