import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { endpoints } from '@vaultline/protocol/wire';
import { describe, expect, it } from 'vitest';
import { EnvSchema } from '../src/config.ts';

const doc = readFileSync(join(import.meta.dirname, '../../../docs/api.md'), 'utf8');

describe('docs/api.md', () => {
  it.each(Object.values(endpoints).map((row) => row.operation))('documents the answer of %s', (operation) => {
    expect(doc).toContain(`\`${operation}`);
  });

  it.each(Object.keys(EnvSchema.entries))('documents the variable %s', (name) => {
    expect(doc).toContain(name);
  });
});
