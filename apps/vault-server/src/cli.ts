#!/usr/bin/env node
// The `vaultline-server` command. Before loading anything else, a server command
// re-executes itself once with its memory settings (see process-tuning.ts); then the CLI proper runs.
import { applyMemoryTuning } from './process-tuning.ts';

let configured = true;
try {
  applyMemoryTuning();
} catch (error) {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  // Loaded only on this path: a start must load nothing before its memory settings.
  process.exitCode = (await import('@vaultline/protocol')).EXIT.usage;
  configured = false;
}
if (configured) await import('./cli/main.ts');
