/**
 * `@vaultline/cli`: the `vaultline` command. The package's entry exports the command tree and its
 * constants, for tools that embed or document it; the executable is `dist/cli.js`.
 *
 * @module
 */

export { EXIT } from '@vaultline/protocol';
export { completionScript, SHELLS, type Shell } from './completion.ts';
export { DEFAULT_CONNECTION, ENV, MASK } from './constants.ts';
export type { CommandContext } from './context.ts';
export { type CliEnvironment, readEnvironment } from './env.ts';
export { CliError } from './errors.ts';
export { createMasker, maskNeedles } from './mask.ts';
export { type Output, processOutput } from './output.ts';
export { createProgram } from './program.ts';
