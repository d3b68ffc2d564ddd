import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { API_PROFILES, type ApiProfile, DEFAULT_API_PROFILE } from '@vaultline/protocol/wire';
import type { Database, Queryable } from '@vaultline/store';
import { API_KEY_PREFIX } from '../constants.ts';
import { AddressRuleError, parseCidrList } from '../net/ip-rules.ts';
import type { Principal, WorkloadIdentity } from './access.ts';
import type { Actor } from './actor.ts';
import { identityOf, storedIdentity } from './audit.ts';
import { conflict, invalid, notFound } from './errors.ts';
import { checkText } from './text-rules.ts';
import { auditWrite } from './write-audit.ts';

/** An API key as the server knows it after authentication. */
export interface KeyIdentity {
  readonly principal: Principal;
  /** How the API answers this key: as docs/api.md says, or as TeamPass 2 does. */
  readonly profile: ApiProfile;
  /** Tells whether a client address may use the key; always true without an allow-list. */
  readonly allows: (address: string) => boolean;
  readonly allowIps: readonly string[];
  /** When the key stops working, in ms since the epoch; `undefined` for never. */
  readonly expiresAt: number | undefined;
}

/** What a key bound to an upstream account may reach. */
export interface KeyUpstreamOptions {
  /** The account's name (`upstream add --name`). */
  readonly account: string;
  /** The folder ids of its scope, or `all` for every folder the account may reach. */
  readonly folders: readonly number[] | 'all';
  /** Folders of its scope by path (titles joined by `/`; TeamPass 3 accounts), besides `folders`. */
  readonly paths?: readonly string[] | undefined;
  /** Whether the scope's folders include their subfolders (TeamPass 3 accounts). */
  readonly subfolders?: boolean | undefined;
  /** Whether it may write; read-only by default. */
  readonly write?: boolean | undefined;
}

/** A key as `keys list` shows it: never the key itself. */
export interface KeyInfo {
  id: number;
  label: string;
  login: string | null;
  allowIps: string[];
  profile: ApiProfile;
  createdAt: string;
  revokedAt: string | null;
  /** The upstream account it acts as; `null` for a key of this server's own vault. */
  upstreamAccount: string | null;
  /** Its folder scope (upstream keys): ids, or `all`. */
  scope: readonly number[] | 'all' | null;
  /** Its folder scope by path (upstream keys). */
  paths: readonly string[];
  subfolders: boolean;
  /** Whether it may write (upstream keys; local keys follow their user's rights). */
  write: boolean;
  expiresAt: string | null;
}

/** What a key issued by a trust policy records of where it came from. */
export interface KeyIssuer {
  readonly policyId: number;
  readonly identity: WorkloadIdentity;
  /** A hash of the token exchanged for it: a token whose key was revoked is refused. */
  readonly tokenHash: string;
}

const KEY_PATTERN = /^vlk_[A-Za-z0-9_-]{43}$/;

/** The stored form of a key: SHA-256, hex. Keys are 256 random bits, so no slow hash is needed. */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/**
 * Resolves folder paths to folder ids in an upstream account's folder tree, when a key is made:
 * a rename in TeamPass afterwards does not move the key's scope.
 */
export type ResolveFolderPaths = (
  account: { readonly id: number; readonly name: string },
  paths: readonly string[],
) => Promise<number[]>;

/** A key's upstream scope as its row stores it. */
interface StoredScope {
  readonly accountId: number;
  readonly folders: string;
  readonly paths: string;
  readonly pathsResolved: boolean;
  readonly subfolders: boolean;
  readonly write: boolean;
}

/**
 * Turns the scope options of a key (`keys create`, a trust policy) into what its row stores: the
 * account checked, the scope checked, folder paths resolved to ids when `resolvePaths` is given.
 *
 * @param db The database (the account is read).
 * @param upstream The scope options.
 * @param resolvePaths Resolves paths in the account's folder tree; without it, the key's first
 *   use resolves them.
 * @returns The stored scope.
 */
export async function storedScopeOf(
  db: Queryable,
  upstream: KeyUpstreamOptions,
  resolvePaths?: ResolveFolderPaths | undefined,
): Promise<StoredScope> {
  const paths = upstream.paths ?? [];
  if (upstream.folders !== 'all') {
    if (
      upstream.folders.length + paths.length === 0 ||
      upstream.folders.some((id) => !Number.isSafeInteger(id) || id < 1)
    )
      throw invalid('Expected the folder scope as positive folder ids or folder paths, or all folders.');
    for (const path of paths) {
      if (
        checkText(path, 'a folder path', 1_000)
          .split('/')
          .some((title) => title.trim() === '')
      )
        throw invalid(
          `Expected a folder path as titles joined by "/", received ${JSON.stringify(path.slice(0, 60))}.`,
        );
    }
  } else if (upstream.subfolders || paths.length > 0) {
    throw invalid('Subfolders and folder paths apply to a scope of folders, not to all folders.');
  }
  const rows = await db.query<{ id: number; dialect: string }>(
    'SELECT id, dialect FROM upstream_accounts WHERE name = $1',
    [upstream.account],
  );
  if (!rows[0]) throw notFound(`No upstream account named ${JSON.stringify(upstream.account)}.`);
  if ((upstream.subfolders || paths.length > 0) && rows[0].dialect !== 'teampass3') {
    throw invalid(
      'Subfolders and folder paths need a TeamPass 3 account (TeamPass 2 does not say which folder is whose parent): list every folder id.',
    );
  }
  const accountId = Number(rows[0].id);
  const resolved =
    paths.length > 0 && resolvePaths
      ? await resolvePaths({ id: accountId, name: upstream.account }, paths)
      : [];
  return {
    accountId,
    folders: upstream.folders === 'all' ? '*' : [...new Set([...upstream.folders, ...resolved])].join(','),
    paths: JSON.stringify(paths),
    pathsResolved: paths.length === 0 || resolvePaths !== undefined,
    subfolders: upstream.subfolders ?? false,
    write: upstream.write ?? false,
  };
}

/**
 * Creates a key. It is returned once and only its hash is stored.
 *
 * @returns The key.
 */
export async function createKey(
  db: Database,
  actor: Actor,
  options: {
    label: string;
    login?: string | undefined;
    allowIps?: readonly string[] | undefined;
    profile?: ApiProfile | undefined;
    /** Binds the key to an upstream account, with a folder scope and permissions (upstream mode). */
    upstream?: KeyUpstreamOptions | undefined;
    /** When the key stops working. */
    expiresAt?: Date | undefined;
    /** The trust policy that issues the key, to whom, and a hash of the token it came from. */
    issuedBy?: KeyIssuer | undefined;
  },
  resolvePaths?: ResolveFolderPaths | undefined,
): Promise<string> {
  const label = checkText(options.label.trim(), 'the key label', 100);
  if (label === '') throw invalid('Expected a non-empty key label.');
  const { upstream, expiresAt } = options;
  if (expiresAt !== undefined && !(expiresAt.getTime() > Date.now()))
    throw invalid('Expected an expiry in the future.');
  if (upstream !== undefined && options.login !== undefined)
    throw invalid('A key bound to an upstream account acts as that account: it takes no --user.');
  const profile = profileOf(options.profile ?? DEFAULT_API_PROFILE);
  const allowIps = (options.allowIps ?? []).map((range) => range.trim()).filter((range) => range !== '');
  allowListOf(allowIps);
  // Before the transaction: resolving paths asks the upstream, and PGlite has one connection.
  const scope = upstream === undefined ? undefined : await storedScopeOf(db, upstream, resolvePaths);
  const key = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  await db.transaction(async (tx) => {
    let userId: number | null = null;
    if (options.login !== undefined) {
      const rows = await tx.query<{ id: number }>('SELECT id FROM users WHERE login = $1', [options.login]);
      if (!rows[0]) throw notFound(`User does not exist: ${options.login}.`);
      userId = Number(rows[0].id);
    }
    const taken = await tx.query('SELECT 1 FROM api_keys WHERE label = $1', [label]);
    if (taken.length > 0) throw conflict(`A key labelled ${JSON.stringify(label)} already exists.`);
    await tx.query(
      `INSERT INTO api_keys (label, key_hash, user_id, allow_ips, profile, upstream_account_id, scope_folders,
         scope_subfolders, can_write, expires_at, scope_paths, scope_paths_resolved, trust_policy_id, workload_identity,
         token_hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
      [
        label,
        hashKey(key),
        userId,
        allowIps.join(','),
        profile,
        scope?.accountId ?? null,
        scope?.folders ?? null,
        scope?.subfolders ?? false,
        // Local keys write as their user's rights allow; upstream keys only when asked for.
        scope?.write ?? true,
        expiresAt ?? null,
        scope?.paths ?? '[]',
        scope?.pathsResolved ?? true,
        options.issuedBy?.policyId ?? null,
        storedIdentity(options.issuedBy?.identity),
        options.issuedBy?.tokenHash ?? null,
      ],
    );
    await auditWrite(tx, actor, 'createKey', `key ${label}`);
  });
  return key;
}

/**
 * Keeps the folder ids a key's paths resolved to on its first use (keys made before paths were
 * resolved at creation); from then on only an operator changes its scope.
 *
 * @returns The key's folder ids as stored now (another instance may have resolved them first).
 */
export async function pinKeyPaths(db: Queryable, label: string, ids: readonly number[]): Promise<number[]> {
  await db.query(
    `UPDATE api_keys SET scope_folders = $2, scope_paths_resolved = true
      WHERE label = $1 AND NOT scope_paths_resolved`,
    [label, [...new Set(ids)].join(',')],
  );
  const [row] = await db.query<{ scope_folders: string | null }>(
    'SELECT scope_folders FROM api_keys WHERE label = $1',
    [label],
  );
  const stored = scopeOf(row?.scope_folders ?? null);
  return Array.isArray(stored) ? stored : [];
}

/** Reads a profile name; another is the caller's mistake (`invalid`). */
function profileOf(name: string): ApiProfile {
  const profile = API_PROFILES.find((known) => known === name);
  if (profile === undefined) {
    throw invalid(
      `Expected a profile of ${API_PROFILES.join(' or ')}, received ${JSON.stringify(name.slice(0, 40))}.`,
    );
  }
  return profile;
}

/** Parses an allow-list; a malformed range is the caller's mistake (`invalid`). */
function allowListOf(ranges: readonly string[]): (address: string) => boolean {
  try {
    return parseCidrList(ranges, 'the allowed IP ranges');
  } catch (error) {
    if (error instanceof AddressRuleError) throw invalid(error.message);
    throw error;
  }
}

/** What a presented key turned out to be. */
export type KeyLookup =
  /** A key this vault knows and has not revoked. */
  | { readonly kind: 'valid'; readonly identity: KeyIdentity }
  /** A key this vault issued and revoked: its label is for the audit, never for the answer. */
  | { readonly kind: 'revoked'; readonly principal: Principal }
  /** A key past its expiry. */
  | { readonly kind: 'expired'; readonly principal: Principal }
  /** Anything else: a typo, a guess, a key of another vault. */
  | { readonly kind: 'unknown' };

const UNKNOWN: KeyLookup = { kind: 'unknown' };

/** The columns both reads of a key select, and the joins that give its owner and its account. */
interface KeyRow {
  label: string;
  login: string | null;
  allow_ips: string;
  profile: string;
  account_name: string | null;
  account_login: string | null;
  scope_folders: string | null;
  scope_subfolders: boolean;
  scope_paths: string;
  scope_paths_resolved: boolean;
  can_write: boolean;
  expires_at: Date | string | null;
  workload_identity: string | null;
}
const KEY_COLUMNS = `k.label, u.login, k.allow_ips, k.profile, a.name AS account_name, a.login AS account_login, k.scope_folders,
            k.scope_subfolders, k.scope_paths, k.scope_paths_resolved, k.can_write, k.expires_at, k.workload_identity`;
const KEY_JOINS = `FROM api_keys k LEFT JOIN users u ON u.id = k.user_id
       LEFT JOIN upstream_accounts a ON a.id = k.upstream_account_id`;

/** A stored allow-list: addresses and ranges joined by `,`, empty for any. */
const allowIpsOf = (stored: string): string[] => (stored === '' ? [] : stored.split(','));

/** A stored profile; one the migration's check allows but this release does not know answers as the default. */
const storedProfileOf = (stored: string): ApiProfile =>
  API_PROFILES.find((known) => known === stored) ?? DEFAULT_API_PROFILE;

/**
 * Looks a key up: by hash, then compared in constant time. A revoked key is told apart from an
 * unknown one; only a `valid` lookup carries an identity that authenticates.
 *
 * @returns What the key is.
 */
export async function authenticateKey(db: Queryable, key: string): Promise<KeyLookup> {
  const hash = hashKey(key);
  if (!KEY_PATTERN.test(key)) return UNKNOWN;
  const rows = await db.query<
    KeyRow & { key_hash: string; user_id: number | null; revoked: boolean; account_id: number | null }
  >(
    `SELECT ${KEY_COLUMNS}, k.key_hash, k.user_id, k.revoked_at IS NOT NULL AS revoked,
            k.upstream_account_id AS account_id
       ${KEY_JOINS} WHERE k.key_hash = $1`,
    [hash],
  );
  const row = rows[0];
  if (!row || !timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex'))) return UNKNOWN;
  const scope = scopeOf(row.scope_folders);
  const workload = identityOf(row.workload_identity);
  const principal: Principal =
    row.user_id !== null
      ? { kind: 'user', keyLabel: row.label, userId: Number(row.user_id), login: row.login ?? '', workload }
      : row.account_id !== null
        ? {
            kind: 'upstream',
            keyLabel: row.label,
            grant: {
              accountId: Number(row.account_id),
              accountName: row.account_name ?? '',
              accountLogin: row.account_login ?? '',
              folders: scope === 'all' ? undefined : (scope ?? []),
              paths: row.scope_paths_resolved ? [] : (JSON.parse(row.scope_paths) as string[]),
              subfolders: row.scope_subfolders,
              write: row.can_write,
            },
            workload,
          }
        : { kind: 'admin', keyLabel: row.label, workload };
  if (row.revoked) return { kind: 'revoked', principal };
  if (row.expires_at !== null && new Date(row.expires_at).getTime() <= Date.now())
    return { kind: 'expired', principal };
  const allowIps = allowIpsOf(row.allow_ips);
  const inRange = allowListOf(allowIps);
  return {
    kind: 'valid',
    identity: {
      principal,
      profile: storedProfileOf(row.profile),
      allowIps,
      allows: (address) => allowIps.length === 0 || inRange(address),
      expiresAt: row.expires_at === null ? undefined : new Date(row.expires_at).getTime(),
    },
  };
}

/** A stored scope: `*` for all folders, else ids joined by `,`. */
function scopeOf(stored: string | null): number[] | 'all' | null {
  if (stored === null) return null;
  if (stored === '*') return 'all';
  return stored === '' ? [] : stored.split(',').map(Number);
}

/** Lists keys (labels, owners, allow-lists), never the keys. */
export async function listKeys(db: Queryable): Promise<KeyInfo[]> {
  const rows = await db.query<
    KeyRow & { id: number; created_at: Date | string; revoked_at: Date | string | null }
  >(`SELECT ${KEY_COLUMNS}, k.id, k.created_at, k.revoked_at ${KEY_JOINS} ORDER BY k.id`);
  return rows.map((row) => ({
    id: Number(row.id),
    label: row.label,
    login: row.login,
    allowIps: allowIpsOf(row.allow_ips),
    profile: storedProfileOf(row.profile),
    createdAt: new Date(row.created_at).toISOString(),
    revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at).toISOString(),
    upstreamAccount: row.account_name,
    scope: scopeOf(row.scope_folders),
    paths: JSON.parse(row.scope_paths) as string[],
    subfolders: row.scope_subfolders,
    write: row.can_write,
    expiresAt: row.expires_at === null ? null : new Date(row.expires_at).toISOString(),
  }));
}

/** Revokes a key by label. */
export async function revokeKey(db: Database, actor: Actor, label: string): Promise<void> {
  await db.transaction(async (tx) => {
    const rows = await tx.query(
      'UPDATE api_keys SET revoked_at = now() WHERE label = $1 AND revoked_at IS NULL RETURNING id',
      [label],
    );
    if (rows.length === 0) throw notFound(`No active key labelled ${JSON.stringify(label)}.`);
    await auditWrite(tx, actor, 'revokeKey', `key ${label}`);
  });
}
