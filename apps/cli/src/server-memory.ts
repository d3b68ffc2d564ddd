/**
 * What the core detected about a server reached from environment variables only (CI), kept in
 * the cache directory so that the next process passes it back (`dialect`, `server`) and sends no
 * identification: TeamPass 2 answers each one with an HTTP 500 in its logs. A stored connection
 * keeps this in the configuration (`vaultline connect`) instead.
 *
 * @module
 */

import { join } from 'node:path';
import { DIALECTS, type Dialect, SERVER_KINDS, type ServerKind } from '@vaultline/protocol';
import { privateDir, readPrivateFile, writePrivateFile } from '@vaultline/sealer/node';
import * as v from 'valibot';

const FILE = 'servers.json';

const RememberedSchema = v.record(
  v.string(),
  v.object({ dialect: v.picklist(DIALECTS), server: v.picklist(SERVER_KINDS) }),
);

/** A server's dialect and kind, as the core detected them. */
export interface RememberedServer {
  readonly dialect: Dialect;
  readonly server: ServerKind;
}

async function readAll(dir: string): Promise<Record<string, RememberedServer>> {
  try {
    // Only from a directory and a file no one else may write: a planted answer could otherwise
    // tell the client to send the key in the URL to a server that reads it from a header.
    if (!(await privateDir(dir))) return {};
    const text = await readPrivateFile(join(dir, FILE));
    if (text === undefined) return {};
    const parsed = v.safeParse(RememberedSchema, JSON.parse(text));
    return parsed.success ? parsed.output : {};
  } catch {
    return {};
  }
}

/**
 * What was detected about a server before, if anything.
 *
 * @param dir The cache directory.
 * @param url The server's URL.
 * @returns The dialect and kind, or undefined.
 */
export async function rememberedServer(dir: string, url: string): Promise<RememberedServer | undefined> {
  return (await readAll(dir))[url];
}

/**
 * Keeps what the core detected about a server (best effort: a cache that cannot be written only
 * costs the next process one identification).
 *
 * @param dir The cache directory.
 * @param url The server's URL.
 * @param found The dialect and kind.
 */
export async function rememberServer(dir: string, url: string, found: RememberedServer): Promise<void> {
  try {
    const all = await readAll(dir);
    all[url] = { dialect: found.dialect, server: found.server };
    if (!(await privateDir(dir))) return;
    await writePrivateFile(join(dir, FILE), `${JSON.stringify(all, null, 2)}\n`);
  } catch {
    // Best effort.
  }
}
