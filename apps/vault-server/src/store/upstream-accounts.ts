/**
 * The TeamPass accounts the server acts as in upstream mode: their credentials sealed at rest with
 * the master key (AES-256-GCM, the row id as additional data, so a sealed value copied to another
 * row does not open), listed without secrets, removed once no active key is bound to them, and
 * re-sealed by the master-key rotation.
 *
 * @module
 */

import type { VaultCredentials } from '@vaultline/protocol';
import type { Database, Queryable } from '@vaultline/store';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Actor } from './actor.ts';
import { conflict, invalid, notFound } from './errors.ts';
import { checkText } from './text-rules.ts';
import { auditWrite } from './write-audit.ts';

/** Which API the upstream speaks: `legacy` (TeamPass 2) or `teampass3`. */
export type UpstreamDialect = 'legacy' | 'teampass3';

/** How an account signs in: an API key (TeamPass 2), a password with an API key, or a personal access token (TeamPass 3). */
export type UpstreamMethod = 'api-key' | 'password' | 'token';

/**
 * The secrets of an account, the core's credentials without the login (kept in its own column):
 * never logged, never listed.
 */
export type UpstreamSecrets = Readonly<Omit<VaultCredentials, 'login'>>;

/** An account as the server uses it: who, how, and its opened secrets. */
export interface UpstreamAccount {
  readonly id: number;
  readonly name: string;
  /** The TeamPass it was verified against: its credentials are sent nowhere else. */
  readonly url: string;
  readonly dialect: UpstreamDialect;
  /** The TeamPass 3 login; empty on TeamPass 2, whose key acts for nobody in particular. */
  readonly login: string;
  readonly method: UpstreamMethod;
  readonly secrets: UpstreamSecrets;
}

/** An account as `upstream list` shows it: no secret. */
export interface UpstreamAccountInfo extends Omit<UpstreamAccount, 'secrets'> {
  /** Active (not revoked) keys bound to it. */
  readonly keys: number;
  readonly createdAt: string;
}

/** The columns both reads of an account select, and what they say. */
const ACCOUNT_COLUMNS = 'a.id, a.name, a.url, a.dialect, a.login, a.method';
type AccountRow = Omit<UpstreamAccount, 'secrets'>;

/** An account's fields from its row (PostgreSQL may answer ids as text). */
function accountOf(row: AccountRow): Omit<UpstreamAccount, 'secrets'> {
  return {
    id: Number(row.id),
    name: row.name,
    url: row.url,
    dialect: row.dialect,
    login: row.login,
    method: row.method,
  };
}

/** The additional data a row's credentials are sealed with. */
function rowData(id: number): Buffer {
  return Buffer.from(`upstream_accounts:${id}`, 'utf8');
}

function sealSecrets(box: SecretBox, id: number, secrets: UpstreamSecrets): Buffer {
  return box.seal(Buffer.from(JSON.stringify(secrets), 'utf8'), rowData(id));
}

function openSecrets(box: SecretBox, id: number, sealed: Uint8Array): UpstreamSecrets {
  return JSON.parse(box.open(sealed, rowData(id)).toString('utf8')) as UpstreamSecrets;
}

/** Checks an account's name: what keys and the audit name it by. */
export function checkAccountName(name: string): string {
  const trimmed = checkText(name.trim(), 'the account name', 100);
  if (!/^[A-Za-z0-9._-]+$/.test(trimmed))
    throw invalid('Expected an account name of letters, digits, ".", "_" and "-".');
  return trimmed;
}

/**
 * Registers an account whose credentials were verified by signing in.
 *
 * @returns Its row id.
 */
export async function addAccount(
  db: Database,
  box: SecretBox,
  actor: Actor,
  account: Omit<UpstreamAccount, 'id'>,
): Promise<number> {
  const name = checkAccountName(account.name);
  return db.transaction(async (tx) => {
    const taken = await tx.query('SELECT 1 FROM upstream_accounts WHERE name = $1', [name]);
    if (taken.length > 0) throw conflict(`An upstream account named ${JSON.stringify(name)} already exists.`);
    const [row] = await tx.query<{ id: number }>(
      `INSERT INTO upstream_accounts (name, url, dialect, login, method, credentials)
         VALUES ($1, $2, $3, $4, $5, '\\x') RETURNING id`,
      [name, account.url, account.dialect, account.login, account.method],
    );
    const id = Number(row!.id);
    await tx.query('UPDATE upstream_accounts SET credentials = $2 WHERE id = $1', [
      id,
      sealSecrets(box, id, account.secrets),
    ]);
    await auditWrite(tx, actor, 'addUpstreamAccount', `upstream ${name}`);
    return id;
  });
}

/**
 * Registers new credentials for an account, verified by signing in: its row (and so every key
 * bound to it) is kept.
 *
 * @returns Its row id.
 */
export async function updateAccount(
  db: Database,
  box: SecretBox,
  actor: Actor,
  account: Omit<UpstreamAccount, 'id'>,
): Promise<number> {
  const name = checkAccountName(account.name);
  return db.transaction(async (tx) => {
    const [row] = await tx.query<{ id: number }>(
      'SELECT id FROM upstream_accounts WHERE name = $1 FOR UPDATE',
      [name],
    );
    if (!row) throw notFound(`No upstream account named ${JSON.stringify(name)}.`);
    const id = Number(row.id);
    await tx.query(
      `UPDATE upstream_accounts SET url = $2, dialect = $3, login = $4, method = $5, credentials = $6,
         updated_at = now() WHERE id = $1`,
      [
        id,
        account.url,
        account.dialect,
        account.login,
        account.method,
        sealSecrets(box, id, account.secrets),
      ],
    );
    await auditWrite(tx, actor, 'updateUpstreamAccount', `upstream ${name}`);
    return id;
  });
}

/** Lists the accounts, never their secrets. */
export async function listAccounts(db: Queryable): Promise<UpstreamAccountInfo[]> {
  const rows = await db.query<AccountRow & { keys: number; created_at: Date | string }>(
    `SELECT ${ACCOUNT_COLUMNS}, a.created_at,
            (SELECT count(*) FROM api_keys k WHERE k.upstream_account_id = a.id AND k.revoked_at IS NULL) AS keys
       FROM upstream_accounts a ORDER BY a.id`,
  );
  return rows.map((row) => ({
    ...accountOf(row),
    keys: Number(row.keys),
    createdAt: new Date(row.created_at).toISOString(),
  }));
}

/** Reads one account with its secrets opened: for the upstream sessions only. */
export async function openAccount(db: Queryable, box: SecretBox, id: number): Promise<UpstreamAccount> {
  const rows = await db.query<AccountRow & { credentials: Uint8Array }>(
    `SELECT ${ACCOUNT_COLUMNS}, a.credentials FROM upstream_accounts a WHERE a.id = $1`,
    [id],
  );
  const row = rows[0];
  if (!row) throw notFound(`No upstream account with id ${id}.`);
  return { ...accountOf(row), secrets: openSecrets(box, Number(row.id), row.credentials) };
}

/** Removes an account; refused while an active key is bound to it (revoke those first). */
export async function removeAccount(db: Database, actor: Actor, name: string): Promise<void> {
  await db.transaction(async (tx) => {
    const rows = await tx.query<{ id: number }>(
      'SELECT id FROM upstream_accounts WHERE name = $1 FOR UPDATE',
      [name],
    );
    if (!rows[0]) throw notFound(`No upstream account named ${JSON.stringify(name)}.`);
    const id = Number(rows[0].id);
    const policies = await tx.query<{ name: string }>(
      'SELECT name FROM trust_policies WHERE upstream_account_id = $1 ORDER BY id',
      [id],
    );
    if (policies.length > 0) {
      throw conflict(
        `Trust policies still issue keys acting as ${JSON.stringify(name)}: ${policies.map((p) => p.name).join(', ')}. Remove them first (trust remove).`,
      );
    }
    const active = await tx.query<{ label: string }>(
      'SELECT label FROM api_keys WHERE upstream_account_id = $1 AND revoked_at IS NULL ORDER BY id',
      [id],
    );
    if (active.length > 0) {
      throw conflict(
        `Keys still act as ${JSON.stringify(name)}: ${active.map((k) => k.label).join(', ')}. Revoke them first.`,
      );
    }
    // Revoked keys keep their row (the audit names them) but lose the binding.
    await tx.query('UPDATE api_keys SET upstream_account_id = NULL WHERE upstream_account_id = $1', [id]);
    await tx.query('DELETE FROM upstream_accounts WHERE id = $1', [id]);
    await auditWrite(tx, actor, 'removeUpstreamAccount', `upstream ${name}`);
  });
}

/**
 * Seals every account's credentials under the new master key (the rotation's transaction).
 *
 * @returns How many accounts were re-sealed.
 */
export async function reencryptAccounts(tx: Queryable, from: SecretBox, to: SecretBox): Promise<number> {
  const rows = await tx.query<{ id: number; credentials: Uint8Array }>(
    'SELECT id, credentials FROM upstream_accounts FOR UPDATE',
  );
  for (const row of rows) {
    const id = Number(row.id);
    await tx.query('UPDATE upstream_accounts SET credentials = $2 WHERE id = $1', [
      id,
      to.seal(from.open(row.credentials, rowData(id)), rowData(id)),
    ]);
  }
  return rows.length;
}
