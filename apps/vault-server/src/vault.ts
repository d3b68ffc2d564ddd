import { rename, rm } from 'node:fs/promises';
import type { AccessType, CredentialKind } from '@vaultline/protocol';
import type { ApiProfile } from '@vaultline/protocol/wire';
import { type Database, openPglite, openPostgres } from '@vaultline/store';
import { loadMasterKeys, masterKeyPath } from './crypto/master-key.ts';
import { createSecretBox, type SecretBox } from './crypto/secret-box.ts';
import { lockDataDir } from './data-dir-lock.ts';
import type { FeedLog } from './db/listen-postgres.ts';
import { migrateSchema } from './db/migrations.ts';
import { APPLICATION_NAME, checkNoOlderInstances } from './db/older-instances.ts';
import { VaultServerError } from './errors.ts';
import type { Actor } from './store/actor.ts';
import * as keys from './store/api-keys.ts';
import * as auditLog from './store/audit.ts';
import * as directory from './store/directory.ts';
import { sweepStaleUploads, type UpgradeResult, upgradeLegacyFiles } from './store/files.ts';
import { bindItemSecrets } from './store/item-secrets.ts';
import { fillSearchKeys } from './store/items.ts';
import { createStoreContext, type ListenToChanges, type StoreContext } from './store/store-context.ts';
import * as trust from './store/trust-policies.ts';
import * as upstream from './store/upstream-accounts.ts';
import { folderIdsOfPaths } from './store/upstream-scope.ts';
import { upstreamClient, verifyUpstreamAccount } from './store/upstream-sessions.ts';

const CANARY = 'vaultline master key check';

/** A log that keeps nothing. */
const SILENT: FeedLog = { warn: () => {} };

/** Where the data lives and how it is encrypted. */
export interface VaultOptions {
  dataDir: string | undefined;
  databaseUrl: string | undefined;
  masterKey: string | undefined;
  cacheTtlMs: number;
  /** Whether a missing master key file is created (start, quickstart) or an error (admin commands). */
  createMasterKey: boolean;
  /**
   * Where the listener of the database's change announcements (PostgreSQL, caches on) logs its
   * losses and returns; nowhere by default.
   */
  log?: FeedLog | undefined;
  /**
   * PostgreSQL settings for PGlite beyond the store's (see {@link UPSTREAM_PGLITE_SETTINGS});
   * ignored on PostgreSQL, whose settings are its operator's.
   */
  pgliteSettings?: readonly string[] | undefined;
}

/**
 * PGlite's settings in upstream mode, where the database holds keys, upstream accounts, audit and
 * limits, never items: a 1MB buffer pool (128 pages) holds those tables' working set, and saves
 * 2 MiB of idle RSS over the store's 4MB (PGlite touches all of its buffer pool at start).
 */
export const UPSTREAM_PGLITE_SETTINGS: readonly string[] = ['shared_buffers=1MB'];

/**
 * PGlite's settings in local mode, where the database holds the items: a 2MB buffer pool (256
 * pages) instead of the store's 4MB keeps the idle server under 120 MiB of RSS (PGlite touches all
 * of its pool at start). Reads of a large vault are not slower for it: bench/run.ts times find/item
 * over 100,000 items, whose working set (the indexes) is in the OS page cache either way.
 */
export const LOCAL_PGLITE_SETTINGS: readonly string[] = ['shared_buffers=2MB'];

/**
 * Administration of users, roles, rights and keys: for the CLI and tests, never over HTTP. Every
 * change is audited with the actor the administration was opened for ({@link Vault.adminAs}).
 */
export interface VaultAdmin {
  createUser(user: { login: string; email?: string }): Promise<{ id: number }>;
  createRole(role: { name: string }): Promise<{ id: number }>;
  assignRole(login: string, role: string): Promise<void>;
  unassignRole(login: string, role: string): Promise<void>;
  grant(role: string, folderId: number, access: AccessType): Promise<void>;
  revoke(role: string, folderId: number): Promise<void>;
  createKey(options: {
    label: string;
    login?: string;
    allowIps?: string[];
    profile?: ApiProfile;
    /** Binds the key to an upstream account, with its folder scope and permissions. */
    upstream?: keys.KeyUpstreamOptions | undefined;
    /** When the key stops working. */
    expiresAt?: Date | undefined;
  }): Promise<string>;
  listKeys(): Promise<keys.KeyInfo[]>;
  /**
   * Registers an upstream account after signing in with it at `url` (nothing is stored when the
   * upstream refuses it); its secrets are sealed with the master key.
   */
  addUpstreamAccount(account: {
    name: string;
    url: string;
    login: string;
    method: CredentialKind;
    secrets: upstream.UpstreamSecrets;
  }): Promise<{ id: number; dialect: upstream.UpstreamDialect }>;
  /**
   * Registers new credentials for an account (a changed password, a new API key) after signing in
   * with them, keeping its row and so the keys bound to it; the running server's next call uses them.
   */
  updateUpstreamAccount(account: {
    name: string;
    url: string;
    login: string;
    method: CredentialKind;
    secrets: upstream.UpstreamSecrets;
  }): Promise<{ id: number; dialect: upstream.UpstreamDialect }>;
  listUpstreamAccounts(): Promise<upstream.UpstreamAccountInfo[]>;
  removeUpstreamAccount(name: string): Promise<void>;
  revokeKey(label: string): Promise<void>;
  /** Adds a trust policy: which workloads' identity tokens are exchanged for keys, and bound how. */
  addTrustPolicy(policy: trust.TrustPolicyInput): Promise<{ id: number }>;
  listTrustPolicies(): Promise<trust.TrustPolicy[]>;
  /** Removes a trust policy and revokes the keys it issued; answers how many were live. */
  removeTrustPolicy(name: string): Promise<{ revoked: number }>;
  listUsers(): ReturnType<typeof directory.listUsers>;
  listRoles(): ReturnType<typeof directory.listRoles>;
  listAudit(options: { limit: number; action?: string | undefined }): ReturnType<typeof auditLog.listAudit>;
}

/** An open vault: storage, encryption and administration. */
export interface Vault {
  readonly db: Database;
  readonly ctx: StoreContext;
  /** Attachments of the old format (one blob each) rewritten in chunks when the vault was opened. */
  readonly attachments: UpgradeResult;
  /** The administration, acting as `actor`: every change it makes is audited with that actor. */
  adminAs(actor: Actor): VaultAdmin;
  /** Calls `listener` with an account's id once its credentials were registered again or it was removed. */
  onUpstreamAccountChange(listener: (accountId: number) => void): void;
  close(): Promise<void>;
}

async function checkMasterKey(
  db: Database,
  candidates: Buffer[],
): Promise<{ box: SecretBox; index: number }> {
  // Another instance may create the check value at the same moment: insert if absent, then verify
  // against whatever is stored.
  await db.query("INSERT INTO meta (name, value) VALUES ('canary', $1) ON CONFLICT (name) DO NOTHING", [
    createSecretBox(candidates[0]!).sealText(CANARY),
  ]);
  const rows = await db.query<{ value: Uint8Array }>("SELECT value FROM meta WHERE name = 'canary'");
  for (const [index, key] of candidates.entries()) {
    const box = createSecretBox(key);
    try {
      if (rows[0] && box.openText(rows[0].value) === CANARY) return { box, index };
    } catch {
      // try the next key
    }
  }
  throw new VaultServerError(
    'invalid_request',
    "The master key does not match this vault's data: check VAULTLINE_MASTER_KEY or the master.key file.",
  );
}

/**
 * Opens the vault: the database (PostgreSQL when a URL is given, else PGlite in the data directory
 * or in memory), the migrations, and the master key.
 */
export async function openVault(options: VaultOptions): Promise<Vault> {
  const release =
    options.databaseUrl === undefined && options.dataDir !== undefined
      ? await lockDataDir(options.dataDir)
      : undefined;
  let db: Database | undefined;
  try {
    if (options.dataDir !== undefined && options.databaseUrl !== undefined) {
      const { mkdir } = await import('node:fs/promises');
      await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
    }
    // Each engine's driver is loaded only when used (the store package loads it when opened, and
    // pg_trgm and the listener are imported here): pg is not held in a PGlite server's memory, nor
    // PGlite's in a PostgreSQL server's.
    let listen: ListenToChanges | undefined;
    if (options.databaseUrl !== undefined) {
      const url = options.databaseUrl;
      const [{ listenToChanges }, opened] = await Promise.all([
        import('./db/listen-postgres.ts'),
        openPostgres({ url, applicationName: APPLICATION_NAME }),
      ]);
      db = opened;
      const log = options.log ?? SILENT;
      listen = (handlers) => listenToChanges(url, handlers, log);
    } else {
      const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
      db = await openPglite({
        dataDir: options.dataDir,
        extensions: { pg_trgm },
        settings: options.pgliteSettings,
      });
    }
    if (options.databaseUrl !== undefined) await checkNoOlderInstances(db);
    await migrateSchema(db);
    await fillSearchKeys(db);
    if (
      options.databaseUrl !== undefined &&
      options.masterKey === undefined &&
      options.dataDir === undefined
    ) {
      throw new VaultServerError(
        'invalid_request',
        'With DATABASE_URL, set VAULTLINE_MASTER_KEY (the same on every instance) or VAULTLINE_DATA_DIR for a master key file.',
      );
    }
    const candidates = await loadMasterKeys({
      envKey: options.masterKey,
      dataDir: options.dataDir,
      create: options.createMasterKey,
    });
    const { box, index } = await checkMasterKey(db, candidates);
    if (options.masterKey === undefined && options.dataDir !== undefined && candidates.length > 1) {
      // A rotation stopped between its commit and the file rename: finish it, or drop the new key.
      const path = masterKeyPath(options.dataDir);
      if (index === 0) await rename(`${path}.next`, path);
      else await rm(`${path}.next`, { force: true });
    }
    await bindItemSecrets(db, box);
    const attachments = await upgradeLegacyFiles(db, box);
    await sweepStaleUploads(db);
    const ctx = createStoreContext(db, box, options.cacheTtlMs, listen);
    const openDb = db;
    const changed = async <T>(work: Promise<T>): Promise<T> => {
      const result = await work;
      ctx.invalidate();
      return result;
    };
    // A key's folder paths are looked up once, when it is made, in the tree its account sees.
    const resolvePaths: keys.ResolveFolderPaths = async ({ id }, paths) => {
      const account = await upstream.openAccount(openDb, box, id);
      const client = upstreamClient(account.url, account);
      try {
        return folderIdsOfPaths(await client.readUserFolders({ login: account.login }), paths, true);
      } finally {
        await client.dispose().catch(() => {});
      }
    };
    const accountListeners = new Set<(accountId: number) => void>();
    const adminAs = (actor: Actor): VaultAdmin => ({
      createUser: (user) => directory.createUser(openDb, actor, user),
      createRole: (role) => directory.createRole(openDb, actor, role),
      assignRole: (login, role) => changed(directory.assignRole(openDb, actor, login, role)),
      unassignRole: (login, role) => changed(directory.unassignRole(openDb, actor, login, role)),
      grant: (role, folderId, access) => changed(directory.grant(openDb, actor, role, folderId, access)),
      revoke: (role, folderId) => changed(directory.revoke(openDb, actor, role, folderId)),
      createKey: (key) => keys.createKey(openDb, actor, key, resolvePaths),
      listKeys: () => keys.listKeys(openDb),
      async addUpstreamAccount({ url, ...given }) {
        upstream.checkAccountName(given.name);
        // A caller of an earlier version may say `token`: read once, here.
        const account = { ...given, method: upstream.kindOfMethod(given.method) };
        const dialect = await verifyUpstreamAccount(url, account);
        const id = await changed(
          upstream.addAccount(openDb, box, actor, { ...account, url: url.replace(/\/+$/, ''), dialect }),
        );
        return { id, dialect };
      },
      async updateUpstreamAccount({ url, ...given }) {
        upstream.checkAccountName(given.name);
        // A caller of an earlier version may say `token`: read once, here.
        const account = { ...given, method: upstream.kindOfMethod(given.method) };
        const dialect = await verifyUpstreamAccount(url, account);
        const id = await changed(
          upstream.updateAccount(openDb, box, actor, { ...account, url: url.replace(/\/+$/, ''), dialect }),
        );
        for (const listener of accountListeners) listener(id);
        return { id, dialect };
      },
      listUpstreamAccounts: () => upstream.listAccounts(openDb),
      removeUpstreamAccount: (name) => changed(upstream.removeAccount(openDb, actor, name)),
      revokeKey: (label) => changed(keys.revokeKey(openDb, actor, label)),
      addTrustPolicy: async (policy) => ({ id: await trust.addTrustPolicy(openDb, actor, policy) }),
      listTrustPolicies: () => trust.listTrustPolicies(openDb),
      removeTrustPolicy: async (name) => ({
        revoked: await changed(trust.removeTrustPolicy(openDb, actor, name)),
      }),
      listUsers: () => directory.listUsers(openDb),
      listRoles: () => directory.listRoles(openDb),
      listAudit: (query) => auditLog.listAudit(openDb, query),
    });
    return {
      db,
      ctx,
      attachments,
      adminAs,
      onUpstreamAccountChange: (listener) => accountListeners.add(listener),
      async close() {
        await ctx.close();
        await openDb.close();
        await release?.();
      },
    };
  } catch (error) {
    await db?.close().catch(() => {});
    await release?.();
    throw error;
  }
}
