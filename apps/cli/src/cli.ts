#!/usr/bin/env node
/**
 * The `vaultline` executable. It turns on Node's compile cache (V8 code of the program, in the OS
 * temp dir; never data; Node before 22.1 has none and runs without) and loads the bundled program:
 * starting in a few tens of ms matters for `vaultline run`, which sits in front of every command it
 * runs. `vaultline --version` alone is answered here, before the program and its command tree load.
 *
 * @see https://nodejs.org/api/module.html#moduleenablecompilecachecachedir
 * @module
 */

import { readFileSync } from 'node:fs';
import { enableCompileCache } from 'node:module';

const [only, ...more] = process.argv.slice(2);
if (more.length === 0 && (only === '--version' || only === '-V')) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  process.stdout.write(`${pkg.version}\n`);
} else {
  enableCompileCache?.();
  await import('./main.ts');
}
