/**
 * Reading secrets from a person or a pipe: on a terminal, asked without echo; otherwise one per
 * line of stdin. Never from an argument (it would sit in the shell's history and `ps`).
 *
 * @module
 */

import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { EXIT } from '@vaultline/protocol';
import { CliError } from './errors.ts';

/** The most bytes read from stdin for secrets. */
const MAX_STDIN_BYTES = 16 * 1024;

/**
 * Whether a person can be asked: stdin is a terminal.
 *
 * @returns Whether stdin is a terminal.
 */
export function canAsk(): boolean {
  return process.stdin.isTTY === true;
}

/**
 * Asks for a secret on the terminal, without echo (the prompt goes to stderr). Ctrl-C cancels.
 *
 * @param question The prompt, e.g. `Password: `.
 * @param what What is asked, for the message when nothing was typed.
 * @returns The secret, trimmed.
 * @throws {CliError} `cancelled` (exit 130) on Ctrl-C; `empty_secret` (exit 2) for an empty answer.
 */
export function askSecret(question: string, what: string): Promise<string> {
  // One question at a time: commands that open several connections at once ask in turn.
  const asked = questions.then(() => askNow(question, what));
  questions = asked.catch(() => undefined);
  return asked;
}

/** The questions asked so far, in order. */
let questions: Promise<unknown> = Promise.resolve();

async function askNow(question: string, what: string): Promise<string> {
  // The terminal's echo goes to a stream that drops it.
  const silent = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  const prompt = createInterface({ input: process.stdin, output: silent, terminal: true });
  const cancel = new AbortController();
  prompt.on('SIGINT', () => cancel.abort());
  process.stderr.write(question);
  let answer: string;
  try {
    answer = (await prompt.question('', { signal: cancel.signal })).trim();
  } catch (error) {
    throw new CliError('cancelled', 'Cancelled.', EXIT.signalBase + 2, { cause: error });
  } finally {
    prompt.close();
    process.stderr.write('\n');
  }
  if (answer === '') throw new CliError('empty_secret', `No ${what} was typed.`, EXIT.usage);
  return answer;
}

/**
 * Asks a person to choose on the terminal (the question and the echo go to stderr), until the
 * answer is one of those offered. Ctrl-C cancels.
 *
 * @param question The prompt, e.g. `Choose 1 or 2: `.
 * @param answers The answers accepted.
 * @returns The answer given.
 * @throws {CliError} `cancelled` (exit 130) on Ctrl-C or the end of input.
 */
export async function askChoice<T extends string>(question: string, answers: readonly T[]): Promise<T> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const cancel = new AbortController();
  prompt.on('SIGINT', () => cancel.abort());
  prompt.on('close', () => cancel.abort());
  try {
    for (;;) {
      const answer = (await prompt.question(question, { signal: cancel.signal })).trim();
      const chosen = answers.find((offered) => offered === answer);
      if (chosen !== undefined) return chosen;
    }
  } catch (error) {
    throw new CliError('cancelled', 'Cancelled.', EXIT.signalBase + 2, { cause: error });
  } finally {
    prompt.close();
  }
}

/**
 * Reads secrets from stdin, one per line, in the order asked.
 *
 * @param what What each line holds, e.g. `['password', 'API key']`.
 * @returns One secret per entry of `what`, trimmed.
 * @throws {CliError} `invalid_stdin` (exit 2) when stdin is too long or holds fewer lines.
 */
export async function readStdinSecrets(what: readonly string[]): Promise<string[]> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin) {
    total += (chunk as Buffer).length;
    if (total > MAX_STDIN_BYTES)
      throw new CliError('invalid_stdin', `stdin is longer than ${MAX_STDIN_BYTES} bytes.`, EXIT.usage);
    chunks.push(chunk as Buffer);
  }
  const lines = Buffer.concat(chunks)
    .toString('utf8')
    .split(/\r?\n/)
    .map((line) => line.trim());
  const secrets = what.map((_, index) => lines[index] ?? '');
  const empty = secrets.indexOf('');
  if (empty >= 0) {
    const expected = what.length === 1 ? `the ${what[0]}` : `the ${what.join(' and the ')}, one per line`;
    throw new CliError(
      'invalid_stdin',
      `Expected ${expected} on stdin; line ${empty + 1} (the ${what[empty]}) is empty or missing.`,
      EXIT.usage,
    );
  }
  return secrets;
}
