import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI } from './cli.ts';

/** A `vaultline mcp` process and the SDK's client talking to it over stdio. */
export interface McpSession {
  readonly client: Client;
  /** Everything the server wrote to stderr (its log). */
  stderr(): string;
  /** Every answer's text so far (results and errors), for leak checks. */
  readonly answers: string[];
  /** Calls a tool; the answer's text is kept in `answers`. */
  call(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ isError: boolean; data: Record<string, unknown>; text: string }>;
  close(): Promise<void>;
}

/**
 * Starts `node dist/cli.js mcp` with a minimal environment and connects the SDK's client to it.
 *
 * @param options The environment on top of PATH and HOME, and the working directory.
 */
export async function startMcp(options: {
  env: Record<string, string>;
  cwd: string;
  home: string;
}): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp'],
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: options.home,
      XDG_CONFIG_HOME: join(options.home, 'config'),
      ...options.env,
    },
    stderr: 'pipe',
  });
  const log: Buffer[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => log.push(chunk));
  const client = new Client({ name: 'vaultline-test', version: '1.0.0' });
  await client.connect(transport);
  const answers: string[] = [];
  return {
    client,
    answers,
    stderr: () => Buffer.concat(log).toString('utf8'),
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args });
      const content = (result.content as { type: string; text?: string }[]) ?? [];
      const text = content.map((part) => part.text ?? '').join('\n');
      answers.push(text, JSON.stringify(result.structuredContent ?? null));
      return {
        isError: result.isError === true,
        data: (result.structuredContent ?? {}) as Record<string, unknown>,
        text,
      };
    },
    close: () => client.close(),
  };
}

/** A temporary directory, removed by `cleanup`. */
export async function tempDir(prefix: string): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * The runs of `length` characters (code points) of a secret, whole when shorter: what must never
 * appear in an answer or a log line.
 */
export function runsOf(secret: string, length = 6): string[] {
  const chars = Array.from(secret);
  if (chars.length <= length) return [secret];
  const runs = new Set<string>();
  for (let i = 0; i + length <= chars.length; i++) runs.add(chars.slice(i, i + length).join(''));
  return [...runs];
}
