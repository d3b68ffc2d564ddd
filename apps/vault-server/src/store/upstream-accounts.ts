/**
 * The TeamPass accounts the server acts as in upstream mode: their credentials sealed at rest with
 * the master key (AES-256-GCM, the row id as additional data, so a sealed value copied to another
 * row does not open), listed without secrets, removed once no trust policy nor live key of an
 * operator binds them, and re-sealed by the master-key rotation.
 *
 * @module
 */

import { CREDENTIAL_KIND_LIST, type CredentialFields, type CredentialKind } from '@vaultline/protocol';
import type { Database, Queryable } from '@vaultline/store';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Actor } from './actor.ts';
import { conflict, invalid, notFound } from './errors.ts';
import { checkText } from './text-rules.ts';
import { auditWrite } from './write-audit.ts';

/** Which API the upstream speaks: `legacy` (TeamPass 2) or `teampass3`. */
export type UpstreamDialect = 'legacy' | 'teampass3';

/**
 * How the `method` column spells each way of signing in (the core's `CredentialKind`): as the
 * kind, but `token` for a personal access token. The column and its check predate the core's
 * kinds; rows keep that spelling, read and written here only.
 */
const METHOD_COLUMN = {
  'api-key': 'api-key',
  password: 'password',
  'personal-access-token': 'token',
} as const satisfies Readonly<Record<CredentialKind, string>>;

/** A value of the `method` column. */
export type MethodColumn = (typeof METHOD_COLUMN)[CredentialKind];

/**
 * The `method` column's value of a kind: what `upstream list` shows too.
 *
 * @param kind How the account signs in.
 * @returns The stored spelling.
 */
export function methodColumnOf(kind: CredentialKind): MethodColumn {
  return METHOD_COLUMN[kind];
}

/**
 * The kind of a `method`: the column's spelling (`token`) or the core's kind, as callers of
 * earlier versions and rows say it.
 *
 * @param method The stored or given spelling.
 * @returns The kind.
 * @throws {VaultServerError} `invalid_request` for anything else.
 */
export function kindOfMethod(method: string): CredentialKind {
  const kind = (Object.keys(METHOD_COLUMN) as CredentialKind[]).find(
    (candidate) => candidate === method || METHOD_COLUMN[candidate] === method,
  );
  if (kind === undefined)
    throw invalid(
      `Expected a sign-in method of ${CREDENTIAL_KIND_LIST.join(', ')}, received ${JSON.stringify(String(method).slice(0, 40))}.`,
    );
  return kind;
}

/**
 * The secrets of an account, the core's credential fields without the login (kept in its own
 * column): never logged, never listed.
 */
export type UpstreamSecrets = Readonly<Omit<CredentialFields, 'login'>>;

/** An account as the server uses it: who, how, and its opened secrets. */
export interface UpstreamAccount {
  readonly id: number;
  readonly name: string;
  /** The TeamPass it was verified against: its credentials are sent nowhere else. */
  readonly url: string;
  readonly dialect: UpstreamDialect;
  /** The TeamPass 3 login; empty on TeamPass 2, whose key acts for nobody in particular. */
  readonly login: string;
  /** How it signs in. */
  readonly method: CredentialKind;
  readonly secrets: UpstreamSecrets;
}

/** An account as `upstream list` shows it: no secret. */
export interface UpstreamAccountInfo extends Omit<UpstreamAccount, 'secrets'> {
  /** Live keys made by `keys create` (neither revoked nor expired) bound to it. */
  readonly keys: number;
  /** The trust policies whose keys act as it. */
  readonly trustPolicies: readonly string[];
  readonly createdAt: string;
}

/** The columns both reads of an account select, and what they say. */
const ACCOUNT_COLUMNS = 'a.id, a.name, a.url, a.dialect, a.login, a.method';
type AccountRow = Omit<UpstreamAccount, 'secrets' | 'method'> & { method: string };

/** An account's fields from its row (PostgreSQL may answer ids as text). */
function accountOf(row: AccountRow): Omit<UpstreamAccount, 'secrets'> {
  return {
    id: Number(row.id),
    name: row.name,
    url: row.url,
    dialect: row.dialect,
    login: row.login,
    method: kindOfMethod(row.method),
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
      [name, account.url, account.dialect, account.login, methodColumnOf(account.method)],
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
        methodColumnOf(account.method),
        sealSecrets(box, id, account.secrets),
      ],
    );
    await auditWrite(tx, actor, 'updateUpstreamAccount', `upstream ${name}`);
    return id;
  });
}

/**
 * The keys an operator made (not by an exchange) that still work: what ties an account down. An
 * exchange's keys end with their policy, or with the account.
 */
const LIVE_OPERATOR_KEY = `k.revoked_at IS NULL AND k.token_hash IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`;

/** Lists the accounts, never their secrets. */
export async function listAccounts(db: Queryable): Promise<UpstreamAccountInfo[]> {
  const rows = await db.query<
    AccountRow & { keys: number; policies: string | null; created_at: Date | string }
  >(
    `SELECT ${ACCOUNT_COLUMNS}, a.created_at,
            (SELECT count(*) FROM api_keys k WHERE k.upstream_account_id = a.id AND ${LIVE_OPERATOR_KEY}) AS keys,
            (SELECT string_agg(p.name, '/' ORDER BY p.id) FROM trust_policies p WHERE p.upstream_account_id = a.id) AS policies
       FROM upstream_accounts a ORDER BY a.id`,
  );
  return rows.map((row) => ({
    ...accountOf(row),
    keys: Number(row.keys),
    trustPolicies: row.policies === null ? [] : row.policies.split('/'),
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

/** A name as a shell word. */
function shellWord(name: string): string {
  return /^[\w./:@+-]+$/.test(name) ? name : `'${name.replaceAll("'", "'\\''")}'`;
}

/** The names, then what to do with them: the command for the one name, or for each. */
function namesThen(names: readonly string[], what: string, command: string): string {
  const run = names.length === 1 ? `${command} ${shellWord(names[0]!)}` : `${command} <name>, for each`;
  return `${names.join(', ')}. ${what} (${run})`;
}

/**
 * Removes an account. Refused while a trust policy or a live key made by `keys create` binds it,
 * naming them all with what to run. The keys left bound (revoked, expired, or issued by an
 * exchange) are revoked and unbound with it, so that no key outlives the account.
 */
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
    const live = await tx.query<{ label: string }>(
      `SELECT k.label FROM api_keys k WHERE k.upstream_account_id = $1 AND ${LIVE_OPERATOR_KEY} ORDER BY k.id`,
      [id],
    );
    const binding = [
      policies.length === 0
        ? ''
        : `Trust policies still issue keys acting as ${JSON.stringify(name)}: ${namesThen(
            policies.map((p) => p.name),
            'Remove them first',
            'vaultline-server trust remove --name',
          )}.`,
      live.length === 0
        ? ''
        : `Keys still act as ${JSON.stringify(name)}: ${namesThen(
            live.map((k) => k.label),
            'Revoke them first',
            'vaultline-server keys revoke --label',
          )}.`,
    ].filter((part) => part !== '');
    if (binding.length > 0) throw conflict(binding.join(' '));
    // The rows stay (the audit names their keys), revoked and unbound: a key bound to nothing would act as an admin key.
    await tx.query(
      'UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()), upstream_account_id = NULL WHERE upstream_account_id = $1',
      [id],
    );
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
