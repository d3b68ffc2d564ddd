/**
 * What every command gets: the environment, the output, and the global options.
 *
 * @module
 */

import type { Command } from 'commander';
import type { CliEnvironment } from './env.ts';
import type { Output } from './output.ts';

/** What every command gets. */
export interface CommandContext {
  /** The environment, read once. */
  readonly env: CliEnvironment;
  /** Where results go. */
  readonly output: Output;
}

/**
 * The `--connection` option, wherever it was given.
 *
 * @param command The running command.
 * @returns The connection's name, or `undefined` for the default.
 */
export function connectionOption(command: Command): string | undefined {
  const value: unknown = command.optsWithGlobals().connection;
  return typeof value === 'string' ? value : undefined;
}

/**
 * Where warnings go: stderr, as `vaultline: …` lines.
 *
 * @param output The output.
 * @returns The warning function.
 */
export function warnTo(output: Output): (message: string) => void {
  return (message) => output.err(`vaultline: ${message}`);
}

/**
 * A command's action, loaded when the command runs: what it imports (the vault client, the
 * keychain, prompts, …) is split out of the bundle's entry, so a command loads only what it needs
 * and `--version` or `--help` load none of it.
 *
 * @param context The environment and output.
 * @param load Loads the action (a dynamic `import()` of its module).
 * @returns The action commander calls.
 */
export function lazy<Args extends unknown[]>(
  context: CommandContext,
  load: () => Promise<(context: CommandContext) => (...args: Args) => Promise<void> | void>,
): (...args: Args) => Promise<void> {
  return async (...args) => {
    await (await load())(context)(...args);
  };
}
