/**
 * What the core detected about a server reached from environment variables only (CI, Ansible),
 * kept in the cache directory so that the next process passes it back (`dialect`, `server`, a
 * Vaultline server's `identification`) and sends no identification: TeamPass 2 answers each one
 * with an HTTP 500 in its logs, and a play of one-reference lookups would pay one per task. A
 * Vaultline server's answer is passed back for an hour (an upgrade may add features); the core
 * uses it only where the key travels in a header. A stored connection keeps the dialect and kind
 * in the configuration (`vaultline connect`) instead.
 *
 * @module
 */

import { join } from 'node:path';
import {
  DIALECTS,
  type Dialect,
  SERVER_KINDS,
  type ServerInfo,
  ServerInfoSchema,
  type ServerKind,
} from '@vaultline/protocol';
import { privateDir, readPrivateFile, writePrivateFile } from '@vaultline/sealer/node';
import * as v from 'valibot';

const FILE = 'servers.json';

/** How long a Vaultline server's identification is passed back, in ms. */
const IDENTIFICATION_MS = 60 * 60_000;

const RememberedSchema = v.record(
  v.string(),
  v.object({
    dialect: v.picklist(DIALECTS),
    server: v.picklist(SERVER_KINDS),
    identification: v.optional(ServerInfoSchema),
    identifiedAt: v.optional(v.number()),
  }),
);

/** A server's dialect and kind, as the core detected them. */
export interface RememberedServer {
  readonly dialect: Dialect;
  readonly server: ServerKind;
  /** A Vaultline server's keyless identification, while recent. */
  readonly identification?: ServerInfo | undefined;
}

async function readAll(dir: string): Promise<v.InferOutput<typeof RememberedSchema>> {
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
  const found = (await readAll(dir))[url];
  if (found === undefined) return undefined;
  const { identifiedAt, identification, ...kind } = found;
  const age = Date.now() - (identifiedAt ?? Number.NEGATIVE_INFINITY);
  return age >= 0 && age < IDENTIFICATION_MS ? { ...kind, identification } : kind;
}

/**
 * Keeps what the core detected about a server (best effort: a cache that cannot be written only
 * costs the next process one identification).
 *
 * @param dir The cache directory.
 * @param url The server's URL.
 * @param found The dialect and kind, and a Vaultline server's identification.
 */
export async function rememberServer(dir: string, url: string, found: RememberedServer): Promise<void> {
  try {
    const all = await readAll(dir);
    all[url] =
      found.identification === undefined
        ? { dialect: found.dialect, server: found.server }
        : {
            dialect: found.dialect,
            server: found.server,
            identification: found.identification,
            identifiedAt: Date.now(),
          };
    if (!(await privateDir(dir))) return;
    await writePrivateFile(join(dir, FILE), `${JSON.stringify(all, null, 2)}\n`);
  } catch {
    // Best effort.
  }
}
