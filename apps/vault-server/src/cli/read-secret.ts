/**
 * Reads a secret (a password) from stdin, never from the command line, where the process list and
 * the shell's history would keep it: without echo on a terminal, whole from a pipe.
 *
 * @module
 */

import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';

/** The longest secret read from stdin, in bytes. */
export const MAX_SECRET_BYTES = 4096;

/**
 * Reads the secret: on a terminal, asked for with `prompt` and not echoed; from a pipe, all of
 * stdin, less one line break at its end (what `echo` and here-strings add). Spaces are kept.
 *
 * @param input The stream to read (stdin).
 * @param prompt What the terminal shows before the secret is typed.
 * @returns The secret.
 * @throws {Error} When it is empty or longer than {@link MAX_SECRET_BYTES}.
 */
export async function readSecret(input: NodeJS.ReadStream, prompt: string): Promise<string> {
  let secret: string;
  if (input.isTTY) {
    // The terminal's echo goes to a stream that drops it.
    const silent = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    const question = createInterface({ input, output: silent, terminal: true });
    process.stderr.write(prompt);
    try {
      secret = await question.question('');
    } finally {
      question.close();
      process.stderr.write('\n');
    }
  } else {
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of input) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      total += bytes.length;
      if (total > MAX_SECRET_BYTES)
        throw new Error(`The secret on stdin is longer than ${MAX_SECRET_BYTES} bytes.`);
      chunks.push(bytes);
    }
    secret = Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
  }
  if (secret === '') throw new Error('Expected the secret on stdin, received nothing.');
  return secret;
}

/**
 * Reads several secrets: on a terminal, one prompt each without echo; from a pipe, one per line
 * of stdin, in order (so `printf '%s\n%s\n' "$PW" "$KEY" | …`).
 *
 * @param input The stream to read (stdin).
 * @param prompts What the terminal shows before each secret; their count is how many are read.
 * @returns The secrets, in order.
 * @throws {Error} When a secret is missing or empty, or stdin is longer than {@link MAX_SECRET_BYTES}.
 */
export async function readSecrets(input: NodeJS.ReadStream, prompts: readonly string[]): Promise<string[]> {
  if (input.isTTY) {
    const secrets: string[] = [];
    for (const prompt of prompts) secrets.push(await readSecret(input, prompt));
    return secrets;
  }
  const text = await readSecret(input, '');
  const lines = text.split(/\r?\n/);
  if (lines.length !== prompts.length || lines.some((line) => line === '')) {
    throw new Error(
      `Expected ${prompts.length} secret${prompts.length === 1 ? '' : 's'} on stdin, one per line (${prompts
        .map((p) => p.replace(/[:\s]+$/, ''))
        .join(', ')}).`,
    );
  }
  return lines;
}
