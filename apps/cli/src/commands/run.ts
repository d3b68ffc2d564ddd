/**
 * `vaultline run [--env-file F]... [--no-masking] -- <command> [args]`: resolves every reference
 * in the environment and the env files, starts the command with the values in its environment
 * only, masks them in its output, forwards signals and exits with its code. Nothing is written to
 * disk.
 *
 * @module
 */

import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import { parseEnv } from 'node:util';
import { EXIT, findReferences, formatReference, type Reference } from '@vaultline/protocol';
import { Command } from 'commander';
import { ENV } from '../constants.ts';
import { type CommandContext, connectionOption, warnTo } from '../context.ts';
import { isSecretVariable } from '../env.ts';
import { CliError } from '../errors.ts';
import { createMasker, maskNeedles } from '../mask.ts';
import { assertResolved, resolveAll } from '../resolve.ts';
import { withSpinner } from '../spinner.ts';

/** Signals passed on to the child. */
const FORWARDED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];

/** The largest env file read. */
const MAX_ENV_FILE_BYTES = 1024 * 1024;

async function readEnvFile(path: string): Promise<Record<string, string>> {
  let text: string;
  try {
    const bytes = await readFile(path);
    if (bytes.length > MAX_ENV_FILE_BYTES)
      throw new CliError('env_file', `${path} is larger than ${MAX_ENV_FILE_BYTES} bytes.`, EXIT.usage);
    text = bytes.toString('utf8');
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(
      'env_file',
      `Cannot read the env file ${path}: ${(error as NodeJS.ErrnoException).code ?? error}.`,
      EXIT.usage,
    );
  }
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(parseEnv(text))) if (value !== undefined) values[name] = value;
  return values;
}

/**
 * Replaces every reference in the values of an environment.
 *
 * @returns The references found, and a function that writes the resolved environment.
 */
function referencesIn(environment: Record<string, string>) {
  const found = new Map<string, ReturnType<typeof findReferences>>();
  const references: Reference[] = [];
  const where = new Map<string, string[]>();
  for (const [name, value] of Object.entries(environment)) {
    if (!value.includes('vaultline://')) continue;
    const matches = findReferences(value);
    if (matches.length === 0) continue;
    found.set(name, matches);
    for (const match of matches) {
      if (match.error) {
        throw new CliError(match.error.code, `${name}: ${match.error.message}`, EXIT.reference);
      }
      references.push(match.reference!);
      const names = where.get(match.text) ?? [];
      names.push(name);
      where.set(match.text, names);
    }
  }
  return { found, references, where };
}

/**
 * The `run` command.
 *
 * @param context The environment and output.
 * @returns The command.
 */
export function runCommand(context: CommandContext): Command {
  return new Command('run')
    .description(
      `Run a command with the references in its environment (and in --env-file files) replaced by their values: the values go to the command only, are masked in its output, and never touch the disk. ${ENV.apiKey}, ${ENV.password} and ${ENV.personalAccessToken} are not passed on.`,
    )
    .usage('[options] -- <command> [args...]')
    .argument('<command...>', 'the command and its arguments (after --)')
    .option(
      '-f, --env-file <path>',
      'read variables from a dotenv file; repeatable, later files win, the environment wins over files (Node itself exits 9 on a missing --env-file file: -f avoids that)',
      (path: string, previous: string[]) => [...previous, path],
      [] as string[],
    )
    .option('--no-masking', 'do not mask the values in the command output')
    .passThroughOptions()
    .action(async (argv: string[], options: { envFile: string[]; masking: boolean }, command: Command) => {
      const { env, output } = context;
      const [file, ...args] = argv;
      if (file === undefined) throw new CliError('usage', 'Expected a command after --.', EXIT.usage);
      const environment: Record<string, string> = {};
      for (const path of options.envFile) Object.assign(environment, await readEnvFile(path));
      Object.assign(environment, env.all);
      // The command gets its values, not the keys to the vault (API keys, passwords, access tokens).
      for (const name of Object.keys(environment)) if (isSecretVariable(name)) delete environment[name];

      const { found, references, where } = referencesIn(environment);
      const values = new Map<string, string>();
      if (references.length > 0) {
        const resolution = await withSpinner('Resolving references…', () =>
          resolveAll(env, references, connectionOption(command), warnTo(output)),
        );
        assertResolved(resolution.failures, (reference) => {
          const names = where.get(reference);
          return names ? `${names.join(', ')}: ` : '';
        });
        for (const [name, matches] of found) {
          let value = environment[name]!;
          // Replace from the end so earlier ranges stay valid.
          for (const match of [...matches].reverse()) {
            // Results are keyed by canonical text; a hand-written reference may differ from it.
            const result = resolution.results.get(formatReference(match.reference!));
            if (!result?.ok)
              throw new CliError('not_found', `${name}: ${match.text} did not resolve.`, EXIT.reference);
            value = value.slice(0, match.start) + result.value + value.slice(match.end);
            values.set(`${name}\u0000${match.start}`, result.value);
          }
          environment[name] = value;
        }
      }
      const needles = options.masking ? maskNeedles(values.values()) : [];
      const exitCode = await spawnChild(file, args, environment, needles, output.err);
      process.exitCode = exitCode;
    });
}

function spawnChild(
  file: string,
  args: string[],
  environment: Record<string, string>,
  needles: Buffer[],
  report: (text: string) => void,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const mask = needles.length > 0;
    const child = spawn(file, args, {
      env: environment,
      stdio: ['inherit', mask ? 'pipe' : 'inherit', mask ? 'pipe' : 'inherit'],
    });
    const handlers = new Map<NodeJS.Signals, () => void>();
    for (const signal of FORWARDED) {
      const handler = () => {
        child.kill(signal);
      };
      handlers.set(signal, handler);
      process.on(signal, handler);
    }
    const cleanup = () => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
    };
    const drained: Promise<void>[] = [];
    if (mask) {
      for (const [source, target] of [
        [child.stdout, process.stdout],
        [child.stderr, process.stderr],
      ] as const) {
        if (!source) continue;
        const masker = createMasker(needles);
        source.pipe(masker);
        drained.push(
          new Promise((done) => {
            masker.on('data', (chunk: Buffer) => {
              if (!target.write(chunk)) {
                masker.pause();
                target.once('drain', () => masker.resume());
              }
            });
            masker.on('end', done);
            masker.on('error', () => done());
          }),
        );
      }
    }
    child.on('error', (error: NodeJS.ErrnoException) => {
      cleanup();
      if (error.code === 'ENOENT') {
        report(`vaultline: ${file}: command not found.`);
        resolve(EXIT.notFound);
      } else if (error.code === 'EACCES') {
        report(`vaultline: ${file}: permission denied.`);
        resolve(EXIT.cannotExecute);
      } else reject(error);
    });
    child.on('close', (code, signal) => {
      cleanup();
      void Promise.all(drained).then(() => {
        if (signal) resolve(EXIT.signalBase + (osConstants.signals[signal] ?? 0));
        else resolve(code ?? EXIT.error);
      });
    });
  });
}
