/**
 * A real vault server for tests of the extension, the bot and the server itself.
 *
 * @example
 * ```ts
 * const vault = await startTestVault();
 * const client = createVaultClient({ baseUrl: vault.url, auth: vault.adminKey });
 * await vault.close();
 * ```
 * @module
 */

import { parseSinks } from '@vaultline/audit-stream';
import type { AccessType } from '@vaultline/protocol';
import type { ApiProfile, ItemValues } from '@vaultline/protocol/wire';
import { type DemoVault, seedDemo } from './cli/demo.ts';
import { generateMasterKey } from './crypto/master-key.ts';
import { startVaultServer, type VaultServer } from './start-vault-server.ts';
import { operatorActor } from './store/actor.ts';
import { addItems } from './store/items.ts';

/** Options of {@link startTestVault}. */
export interface TestVaultOptions {
  /** A PGlite data directory; in memory when absent. */
  dataDir?: string;
  /** A PostgreSQL URL; wins over dataDir. */
  databaseUrl?: string;
  /** Collects the server's pino JSON lines. */
  logLines?: string[];
  /** The master key (base64); when absent, a key file in dataDir, else a random key. */
  masterKey?: string;
  /** Requests per address per minute. Default 1 000 000 (tests run fast). */
  rateLimitPerMinute?: number;
  /** Failed keys per address per 15 minutes. Default 1 000. */
  failedKeyLimit?: number;
  /** Largest attachment. */
  maxFileBytes?: number;
  /** Attachment transfers at once. */
  maxTransfers?: number;
  /** Attachment transfers of one key at once. */
  maxTransfersPerKey?: number;
  /** How long a transfer may move no byte, in ms. */
  transferIdleMs?: number;
  /** The least a transfer must move per second, over each window of `transferIdleMs`. */
  transferMinRate?: number;
  /** How long a client may take to send a request, in ms. */
  requestTimeoutMs?: number;
  /** Longest URL. */
  maxUrlLength?: number;
  /** Trusted proxies (CIDR). */
  trustedProxies?: string[];
  /** Cache TTL in ms for PostgreSQL (PGlite caches are exact). Default 1000; 0 turns caches off. */
  cacheTtlMs?: number;
  /** Whether `?apikey=` is accepted. Default `accept`. */
  queryKeys?: 'accept' | 'refuse';
  /** Origins allowed by CORS. Default none. */
  corsOrigins?: string[];
  /** Upstream mode: the TeamPass (fake) whose items the server serves. */
  upstreamUrl?: string;
  /** Upstream mode: the read cache's time, in ms (0, off, by default). */
  upstreamCacheTtlMs?: number;
  /** Upstream mode: the stale-if-error limit, in ms (0, off, by default). */
  upstreamStaleIfErrorMs?: number;
  /** Audit sinks, as `VAULTLINE_AUDIT_SINKS` lists them. */
  auditSinks?: string;
  /** The bearer token of HTTP audit sinks. */
  auditSinkToken?: string;
  /** A PEM file of CAs the audit sinks' TLS may use. */
  auditSinkCa?: string;
  /** Audit events waiting per sink. */
  auditQueueSize?: number;
  /** Upstream mode: a caller's deadline, in ms (8 000 by default). */
  upstreamDeadlineMs?: number;
  /** Upstream mode: calls per minute and account; high by default, as the fakes limit nothing unless told. */
  upstreamCallsPerMinute?: number;
}

/** The administration a test needs. */
export interface TestVaultAdmin {
  createUser(user: { login: string; email?: string }): Promise<{ id: number }>;
  createRole(role: { name: string }): Promise<{ id: number }>;
  assignRole(login: string, role: string): Promise<void>;
  grant(role: string, folderId: number, access: AccessType): Promise<void>;
  revoke(role: string, folderId: number): Promise<void>;
  createKey(options: {
    label: string;
    login?: string;
    allowIps?: string[];
    /** How the API answers the key: `vaultline` (default) or `teampass`. */
    profile?: ApiProfile;
  }): Promise<string>;
  revokeKey(label: string): Promise<void>;
  /**
   * Adds many items at once through the store (the checks, encryption and audit of add/item), for
   * benchmarks that need tens of thousands of items: the API would take minutes.
   *
   * @returns The new ids, in order.
   */
  addItems(items: readonly ItemValues[]): Promise<number[]>;
}

/** A running test vault. */
export interface TestVault {
  /** The base URL; the API is at `${url}/api/index.php/...`. */
  readonly url: string;
  /** An admin API key. */
  readonly adminKey: string;
  readonly admin: TestVaultAdmin;
  /** The server itself, for tests of the server. */
  readonly server: VaultServer;
  /** Seeds the demo vault. */
  seedDemo(): Promise<DemoVault>;
  close(): Promise<void>;
}

let counter = 0;

/**
 * Starts a real server on 127.0.0.1 on a free port, in this process.
 *
 * @param options Where the data lives and where logs go.
 * @returns The vault.
 */
export async function startTestVault(options: TestVaultOptions = {}): Promise<TestVault> {
  const server = await startVaultServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: options.dataDir,
    databaseUrl: options.databaseUrl,
    // A database outlives a test's process: give it a key unless the test brings one.
    masterKey:
      options.masterKey ??
      (options.databaseUrl !== undefined && options.dataDir === undefined ? generateMasterKey() : undefined),
    rateLimitPerMinute: options.rateLimitPerMinute ?? 1_000_000,
    failedKeyLimit: options.failedKeyLimit ?? 1_000,
    maxFileBytes: options.maxFileBytes,
    maxTransfers: options.maxTransfers,
    maxTransfersPerKey: options.maxTransfersPerKey,
    transferIdleMs: options.transferIdleMs,
    transferMinRate: options.transferMinRate,
    requestTimeoutMs: options.requestTimeoutMs,
    maxUrlLength: options.maxUrlLength,
    trustedProxies: options.trustedProxies,
    cacheTtlMs: options.cacheTtlMs,
    queryKeys: options.queryKeys,
    corsOrigins: options.corsOrigins,
    upstreamUrl: options.upstreamUrl,
    upstreamCacheTtlMs: options.upstreamCacheTtlMs,
    upstreamStaleIfErrorMs: options.upstreamStaleIfErrorMs,
    auditSinks: options.auditSinks === undefined ? undefined : parseSinks(options.auditSinks),
    auditSinkToken: options.auditSinkToken,
    auditSinkCa: options.auditSinkCa,
    auditQueueSize: options.auditQueueSize,
    upstreamDeadlineMs: options.upstreamDeadlineMs,
    upstreamCallsPerMinute: options.upstreamCallsPerMinute ?? 1_000_000,
    logLevel: 'info',
    log: options.logLines
      ? { write: (line: string) => options.logLines!.push(line.trimEnd()) }
      : { write: () => {} },
  });
  // The harness administers as an operator of its own: its changes are audited as `test-harness`.
  const operator = operatorActor('test-harness', 'test');
  const admin = server.vault.adminAs(operator);
  let adminKey: string;
  try {
    adminKey = await admin.createKey({ label: `test-admin-${process.pid}-${++counter}-${Date.now()}` });
  } catch (error) {
    await server.close();
    throw error;
  }
  return {
    url: server.url,
    adminKey,
    admin: {
      createUser: (user) => admin.createUser(user),
      createRole: (role) => admin.createRole(role),
      assignRole: (login, role) => admin.assignRole(login, role),
      grant: (role, folderId, access) => admin.grant(role, folderId, access),
      revoke: (role, folderId) => admin.revoke(role, folderId),
      createKey: (key) => admin.createKey(key),
      revokeKey: (label) => admin.revokeKey(label),
      addItems: (items) => addItems(server.vault.ctx, operator, items),
    },
    server,
    seedDemo: () => seedDemo(server.url, adminKey, admin),
    close: () => server.close(),
  };
}

export type { DemoVault } from './cli/demo.ts';
export { type IssuerMode, startTestIssuer, type TestIssuer } from './oidc/test-issuer.ts';
export { type OutageMode, type OutageProxy, startOutageProxy } from './outage-proxy.ts';
export { type ItemSecretColumn, sealItemSecret } from './store/item-secrets.ts';
