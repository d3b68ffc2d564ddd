/**
 * What runs for the commands declared in ./command.ts, loaded only when one of them runs.
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import { chmod, lstat, open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { EXIT, findReferences, formatReference } from '@vaultline/protocol';
import type { Command } from 'commander';

import { type CommandContext, connectionOption, warnTo } from '../../context.ts';
import { CliError } from '../../errors.ts';
import { assertResolved, fallbackOption, resolveAll } from '../../resolve.ts';
import { withSpinner } from '../../spinner.ts';

/** The largest template read. */
const MAX_TEMPLATE_BYTES = 10 * 1024 * 1024;

async function readTemplate(path: string | undefined): Promise<string> {
  if (path === undefined || path === '-') {
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of process.stdin) {
      total += (chunk as Buffer).length;
      if (total > MAX_TEMPLATE_BYTES)
        throw new CliError(
          'template',
          `The template on stdin is larger than ${MAX_TEMPLATE_BYTES} bytes.`,
          EXIT.usage,
        );
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    const bytes = await readFile(path);
    if (bytes.length > MAX_TEMPLATE_BYTES)
      throw new CliError('template', `${path} is larger than ${MAX_TEMPLATE_BYTES} bytes.`, EXIT.usage);
    return bytes.toString('utf8');
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(
      'template',
      `Cannot read the template ${path}: ${(error as NodeJS.ErrnoException).code ?? error}.`,
      EXIT.usage,
    );
  }
}

async function writeSecretFile(path: string, text: string, force: boolean): Promise<void> {
  const target = force
    ? join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`)
    : path;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(target, 'wx', 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST')
      throw new CliError('exists', `${path} exists; pass --force to overwrite it.`, EXIT.exists);
    throw new CliError('output', `Cannot create ${path}: ${code ?? error}.`, EXIT.error);
  }
  try {
    await handle.chmod(0o600);
    await handle.writeFile(text, 'utf8');
  } catch (error) {
    await handle.close();
    await rm(target, { force: true });
    throw error;
  }
  await handle.close();
  if (force) {
    try {
      await rename(target, path);
      await chmod(path, 0o600);
    } catch (error) {
      await rm(target, { force: true });
      throw new CliError(
        'output',
        `Cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? error}.`,
        EXIT.error,
      );
    }
  }
}

/** What `inject` does. */
export const injectAction =
  (context: CommandContext) =>
  async (
    options: { inFile?: string; outFile?: string; force?: boolean; cacheMaxAge?: string },
    command: Command,
  ) => {
    const { env, output } = context;
    const fallback = fallbackOption(options.cacheMaxAge, env);
    const toStdout = options.outFile === undefined || options.outFile === '-';
    // Fail before reading the vault; the exclusive create below still guards against races.
    if (!toStdout && !options.force && (await exists(options.outFile!)))
      throw new CliError('exists', `${options.outFile} exists; pass --force to overwrite it.`, EXIT.exists);
    const template = await readTemplate(options.inFile);
    const found = findReferences(template);
    const invalid = found.filter((match) => match.error);
    if (invalid.length > 0) {
      throw new CliError(
        invalid[0]!.error!.code,
        invalid.map((match) => `${lineOf(template, match.start)}: ${match.error!.message}`).join('\n'),
        EXIT.reference,
      );
    }
    let text = template;
    if (found.length > 0) {
      const resolution = await withSpinner('Resolving references…', () =>
        resolveAll(
          env,
          found.map((match) => match.reference!),
          connectionOption(command),
          warnTo(output),
          { fallback },
        ),
      );
      assertResolved(resolution.failures);
      for (const match of [...found].reverse()) {
        const value = resolution.values.get(formatReference(match.reference!));
        if (value === undefined)
          throw new CliError('not_found', `${match.text} did not resolve.`, EXIT.reference);
        text = text.slice(0, match.start) + value + text.slice(match.end);
      }
    }
    if (toStdout) {
      output.out(text);
      return;
    }
    await writeSecretFile(options.outFile!, text, options.force === true);
    output.err(`Wrote ${options.outFile} (mode 0600, ${found.length} references resolved).`);
  };

function lineOf(text: string, offset: number): string {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return `line ${line}`;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
