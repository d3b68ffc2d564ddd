import { readFile } from 'node:fs/promises';
import { EXIT } from '@vaultline/protocol';
import { describe, expect, it } from 'vitest';
import { ENV } from './constants.ts';
import { readEnvironment } from './env.ts';
import { processOutput } from './output.ts';
import { createProgram } from './program.ts';

const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');

describe('README', () => {
  const program = createProgram({ env: readEnvironment({}), output: processOutput() });

  it('documents every command of the command tree', () => {
    for (const command of program.commands) expect(readme).toContain(`vaultline ${command.name()}`);
  });

  it('documents every exit code and environment variable', () => {
    for (const [name, code] of Object.entries(EXIT)) {
      if (name === 'signalBase') expect(readme).toContain(`| ${code}+N |`);
      else expect({ name, documented: readme.includes(`| ${code} |`) }).toEqual({ name, documented: true });
    }
    for (const variable of Object.values(ENV)) expect(readme).toContain(`\`${variable}\``);
  });

  it('links the reference grammar', async () => {
    expect(readme).toContain('(../../docs/references.md)');
    const grammar = await readFile(new URL('../../../docs/references.md', import.meta.url), 'utf8');
    expect(grammar).toContain('reference   = "vaultline://"');
  });
});
