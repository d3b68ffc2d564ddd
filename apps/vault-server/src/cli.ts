#!/usr/bin/env node
// The `vaultline-server` command. Before loading anything else, a server command
// re-executes itself once with its memory settings (see process-tuning.ts); then the CLI proper runs.
import { applyMemoryTuning } from './process-tuning.ts';

let configured = true;
try {
  applyMemoryTuning();
} catch (error) {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
  configured = false;
}
if (configured) await import('./cli-main.ts');
