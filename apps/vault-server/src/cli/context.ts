/**
 * What every command of `vaultline-server` gets: where it writes, how it says that it left a server
 * running, and the configured vault, opened as the operator who runs the command.
 *
 * @module
 */

import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectAdminChannel } from '../admin-channel.ts';
import { configFromEnv, type VaultServerConfig } from '../config.ts';
import { type Actor, operatorActor } from '../store/actor.ts';
import { openVault, type Vault, type VaultAdmin } from '../vault.ts';

/** Where the CLI writes: the process's streams, or a test's buffers. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

/** The process's own streams. */
export const PROCESS_IO: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/** What every command gets. */
export interface CliContext {
  /** Where output goes. */
  readonly io: CliIo;
  /** Called by a command that leaves a server running: the process then stays up. */
  keepAlive(): void;
}

/** Who runs the CLI, as the audit names them: the operating-system user. */
export function operator(): Actor {
  let name: string;
  try {
    name = userInfo().username;
  } catch {
    name = process.env.USER ?? 'unknown';
  }
  return operatorActor(name, 'cli');
}

/** The repository's root, where `quickstart` keeps its data. */
export function repoRoot(): string {
  // dist/cli/context.js (or src/cli/context.ts) → apps/vault-server → apps → repo root
  return resolve(fileURLToPath(new URL('../../../../', import.meta.url)));
}

/** The configuration from the environment, with a default data directory. */
export function config(defaultDataDir: string): VaultServerConfig {
  return configFromEnv(process.env, defaultDataDir);
}

/** Runs `work` with the configured vault (`./.data/vault` by default), closed afterwards. */
export async function withVault<T>(work: (vault: Vault) => Promise<T>): Promise<T> {
  const cfg = config(resolve('.data/vault'));
  const vault = await openVault({
    dataDir: cfg.dataDir,
    databaseUrl: cfg.databaseUrl,
    masterKey: cfg.masterKey,
    cacheTtlMs: 0,
    createMasterKey: true,
  });
  try {
    return await work(vault);
  } finally {
    await vault.close();
  }
}

/**
 * Runs `work` with the administration of the configured vault, acting as the CLI's operator: on
 * PGlite held by a running server, through that server's admin channel; otherwise on the vault
 * opened here (PostgreSQL is shared by every process).
 */
export async function withAdmin<T>(work: (admin: VaultAdmin) => Promise<T>): Promise<T> {
  const cfg = config(resolve('.data/vault'));
  if (cfg.databaseUrl === undefined && cfg.dataDir !== undefined) {
    const running = await connectAdminChannel(cfg.dataDir, operator().name);
    if (running) return work(running);
  }
  return withVault((vault) => work(vault.adminAs(operator())));
}
