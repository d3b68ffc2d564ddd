/**
 * What runs for the commands declared in ./command.ts, loaded only when one of them runs.
 *
 * @module
 */

import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import { parseEnv } from 'node:util';
import { EXIT, fillEnvironment, findEnvironmentReferences } from '@vaultline/protocol';
import type { Command } from 'commander';
import { type CommandContext, connectionOption, warnTo } from '../../context.ts';
import { isSecretVariable } from '../../env.ts';
import { CliError } from '../../errors.ts';
import { createMasker, maskNeedles } from '../../mask.ts';
import { assertResolved, fallbackOption, resolveAll } from '../../resolve.ts';
import { withSpinner } from '../../spinner.ts';

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

/** What `run` does. */
export const runAction =
  (context: CommandContext) =>
  async (
    argv: string[],
    options: { envFile: string[]; masking: boolean; cacheMaxAge?: string },
    command: Command,
  ) => {
    const { env, output } = context;
    const [file, ...args] = argv;
    if (file === undefined) throw new CliError('usage', 'Expected a command after --.', EXIT.usage);
    const environment: Record<string, string> = {};
    for (const path of options.envFile) Object.assign(environment, await readEnvFile(path));
    Object.assign(environment, env.all);
    // The command gets its values, not the keys to the vault (API keys, passwords, access tokens).
    for (const name of Object.keys(environment)) if (isSecretVariable(name)) delete environment[name];

    const found = findEnvironmentReferences(environment);
    const fallback = fallbackOption(options.cacheMaxAge, env);
    const secrets: string[] = [];
    if (found.references.length > 0) {
      const resolution = await withSpinner('Resolving references…', () =>
        resolveAll(env, found.references, connectionOption(command), warnTo(output), { fallback }),
      );
      assertResolved(resolution.failures, (reference) => {
        const names = found.variablesOf(reference);
        return names.length > 0 ? `${names.join(', ')}: ` : '';
      });
      for (const variable of fillEnvironment(environment, found, (text) => resolution.values.get(text))) {
        environment[variable.name] = variable.value;
        secrets.push(...variable.secrets);
      }
    }
    const needles = options.masking ? maskNeedles(secrets) : [];
    const exitCode = await spawnChild(file, args, environment, needles, output.err);
    process.exitCode = exitCode;
  };

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
