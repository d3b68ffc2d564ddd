#!/usr/bin/env node
/**
 * The `vaultline` executable. It only turns on Node's compile cache (V8 code of the program, in
 * the OS temp dir; never data) and loads the bundled program: starting in a few tens of ms matters
 * for `vaultline run`, which sits in front of every command it runs.
 *
 * @see https://nodejs.org/api/module.html#moduleenablecompilecachecachedir
 * @module
 */

import { enableCompileCache } from 'node:module';

enableCompileCache?.();
await import('./main.ts');
