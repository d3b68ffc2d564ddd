/**
 * Trust policies (`vaultline-server trust add`): which workloads may exchange an identity token
 * for a short-lived key (an issuer, an audience, claims), and what the key is bound to, as a key of
 * `keys create` is: a user of this vault, or an upstream account with a folder scope. The keys a
 * policy issues are ordinary keys (`createKey`), linked to it: removing the policy revokes them.
 *
 * @module
 */

import type { Database, Queryable } from '@vaultline/store';
import { checkPattern } from '../oidc/claim-pattern.ts';
import { checkIssuerUrl } from '../oidc/issuer-url.ts';
import type { Actor } from './actor.ts';
import type { KeyUpstreamOptions } from './api-keys.ts';
import { conflict, invalid, notFound } from './errors.ts';
import { checkText } from './text-rules.ts';
import { auditWrite } from './write-audit.ts';

/** The TTL of a policy's keys unless told: 15 minutes. */
export const DEFAULT_KEY_TTL_SECONDS = 15 * 60;
/** The longest TTL a policy may give its keys: 12 hours. */
export const MAX_KEY_TTL_SECONDS = 12 * 60 * 60;
/** The oldest token (by `iat`) a policy accepts unless told: 1 hour. */
export const DEFAULT_MAX_TOKEN_AGE_SECONDS = 60 * 60;

/** A policy as `trust add` gives it. */
export interface TrustPolicyInput {
  readonly name: string;
  readonly issuer: string;
  readonly audience: string;
  /** The claims a token must carry: exact values, or a prefix ending in `*` after `/` or `:`. */
  readonly claims: Readonly<Record<string, string>>;
  /** The key set's URL, instead of the issuer's discovery document (a cluster's issuer that the server cannot reach). */
  readonly jwksUrl?: string | undefined;
  /** The user its keys act as (this vault's own). */
  readonly login?: string | undefined;
  /** The upstream account its keys act as, with their scope (`keys create`'s options). */
  readonly upstream?: KeyUpstreamOptions | undefined;
  /** How long its keys live (never past the token's expiry), in seconds. */
  readonly ttlSeconds?: number | undefined;
  /** The oldest token it accepts, by `iat`, in seconds. */
  readonly maxTokenAgeSeconds?: number | undefined;
}

/** A policy as the exchange and `trust list` read it. */
export interface TrustPolicy {
  readonly id: number;
  readonly name: string;
  readonly issuer: string;
  readonly audience: string;
  readonly claims: Readonly<Record<string, string>>;
  readonly jwksUrl: string | undefined;
  /** The user its keys act as. */
  readonly login: string | undefined;
  /** The upstream account and scope its keys act with. */
  readonly upstream: KeyUpstreamOptions | undefined;
  readonly ttlSeconds: number;
  readonly maxTokenAgeSeconds: number;
  readonly createdAt: string;
}

/** The scope of an upstream binding as stored: `keys create`'s options but the account. */
type StoredScope = Omit<KeyUpstreamOptions, 'account'>;

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

function checked<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    throw invalid((error as Error).message);
  }
}

function secondsOf(value: number | undefined, fallback: number, max: number, what: string): number {
  const seconds = value ?? fallback;
  if (!Number.isSafeInteger(seconds) || seconds < 60 || seconds > max)
    throw invalid(`Expected ${what} between 1 minute and ${max / 3600} hours.`);
  return seconds;
}

/**
 * Adds a policy.
 *
 * @param db The database.
 * @param actor Who adds it.
 * @param input The policy.
 * @returns Its id.
 */
export async function addTrustPolicy(db: Database, actor: Actor, input: TrustPolicyInput): Promise<number> {
  if (!NAME.test(input.name))
    throw invalid(
      'Expected a policy name of letters, digits, ".", "_" and "-" (at most 63), starting with a letter or digit.',
    );
  checked(() => checkIssuerUrl(input.issuer, '--issuer'));
  if (input.jwksUrl !== undefined) checked(() => checkIssuerUrl(input.jwksUrl!, '--jwks-url'));
  const audience = checkText(input.audience.trim(), 'the audience', 500);
  if (audience === '') throw invalid('Expected a non-empty --audience.');
  const claims = Object.entries(input.claims);
  // An issuer such as GitHub's signs for every repository in the world: a policy names whose tokens it takes.
  if (claims.length === 0)
    throw invalid(
      'Expected at least one --claim (e.g. repository=acme/api): the issuer alone signs for everyone it serves.',
    );
  for (const [name, pattern] of claims) checked(() => checkPattern(name, pattern));
  if ((input.login === undefined) === (input.upstream === undefined))
    throw invalid('Bind the policy to --user <login> or to --upstream-account <name>.');
  const ttl = secondsOf(input.ttlSeconds, DEFAULT_KEY_TTL_SECONDS, MAX_KEY_TTL_SECONDS, '--ttl');
  const maxAge = secondsOf(
    input.maxTokenAgeSeconds,
    DEFAULT_MAX_TOKEN_AGE_SECONDS,
    24 * 3600,
    '--max-token-age',
  );
  return db.transaction(async (tx) => {
    const taken = await tx.query('SELECT 1 FROM trust_policies WHERE name = $1', [input.name]);
    if (taken.length > 0)
      throw conflict(`A trust policy named ${JSON.stringify(input.name)} already exists.`);
    let userId: number | null = null;
    let accountId: number | null = null;
    let scope: StoredScope | null = null;
    if (input.login !== undefined) {
      const rows = await tx.query<{ id: number }>('SELECT id FROM users WHERE login = $1', [input.login]);
      if (!rows[0]) throw notFound(`User does not exist: ${input.login}.`);
      userId = Number(rows[0].id);
    } else {
      const { account, ...rest } = input.upstream!;
      const rows = await tx.query<{ id: number }>('SELECT id FROM upstream_accounts WHERE name = $1', [
        account,
      ]);
      if (!rows[0]) throw notFound(`No upstream account named ${JSON.stringify(account)}.`);
      accountId = Number(rows[0].id);
      scope = rest;
    }
    const rows = await tx.query<{ id: number }>(
      `INSERT INTO trust_policies (name, issuer, audience, claims, jwks_url, user_id, upstream_account_id,
         upstream_scope, ttl_seconds, max_token_age_seconds)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
      [
        input.name,
        input.issuer,
        audience,
        JSON.stringify(Object.fromEntries(claims)),
        input.jwksUrl ?? null,
        userId,
        accountId,
        scope === null ? null : JSON.stringify(scope),
        ttl,
        maxAge,
      ],
    );
    await auditWrite(tx, actor, 'addTrustPolicy', `trust policy ${input.name}`);
    return Number(rows[0]!.id);
  });
}

interface PolicyRow {
  id: number;
  name: string;
  issuer: string;
  audience: string;
  claims: string;
  jwks_url: string | null;
  login: string | null;
  account_name: string | null;
  upstream_scope: string | null;
  ttl_seconds: number;
  max_token_age_seconds: number;
  created_at: Date | string;
}

const POLICY_SELECT = `SELECT p.id, p.name, p.issuer, p.audience, p.claims, p.jwks_url, u.login, a.name AS account_name,
    p.upstream_scope, p.ttl_seconds, p.max_token_age_seconds, p.created_at
  FROM trust_policies p LEFT JOIN users u ON u.id = p.user_id
  LEFT JOIN upstream_accounts a ON a.id = p.upstream_account_id`;

function policyOf(row: PolicyRow): TrustPolicy {
  const scope = row.upstream_scope === null ? null : (JSON.parse(row.upstream_scope) as StoredScope);
  return {
    id: Number(row.id),
    name: row.name,
    issuer: row.issuer,
    audience: row.audience,
    claims: JSON.parse(row.claims) as Record<string, string>,
    jwksUrl: row.jwks_url ?? undefined,
    login: row.login ?? undefined,
    upstream:
      scope === null || row.account_name === null ? undefined : { account: row.account_name, ...scope },
    ttlSeconds: Number(row.ttl_seconds),
    maxTokenAgeSeconds: Number(row.max_token_age_seconds),
    createdAt: new Date(row.created_at).toISOString(),
  };
}

/** Lists the policies. */
export async function listTrustPolicies(db: Queryable): Promise<TrustPolicy[]> {
  return (await db.query<PolicyRow>(`${POLICY_SELECT} ORDER BY p.id`)).map(policyOf);
}

/**
 * The policies a token may be exchanged under: the one named, or those of its issuer.
 *
 * @param db The database.
 * @param name The policy named by the request, if any.
 * @param issuer The token's `iss` (unverified: it only selects what to verify against).
 * @returns The policies.
 */
export async function trustPoliciesFor(
  db: Queryable,
  name: string | undefined,
  issuer: string,
): Promise<TrustPolicy[]> {
  const rows =
    name === undefined
      ? await db.query<PolicyRow>(`${POLICY_SELECT} WHERE p.issuer = $1 ORDER BY p.id`, [issuer])
      : await db.query<PolicyRow>(`${POLICY_SELECT} WHERE p.name = $1`, [name]);
  return rows.map(policyOf);
}

/**
 * Removes a policy and revokes every key it issued, in one transaction.
 *
 * @param db The database.
 * @param actor Who removes it.
 * @param name The policy's name.
 * @returns How many live keys were revoked.
 */
export async function removeTrustPolicy(db: Database, actor: Actor, name: string): Promise<number> {
  return db.transaction(async (tx) => {
    const rows = await tx.query<{ id: number }>('SELECT id FROM trust_policies WHERE name = $1', [name]);
    if (!rows[0]) throw notFound(`No trust policy named ${JSON.stringify(name)}.`);
    const revoked = await tx.query(
      'UPDATE api_keys SET revoked_at = now() WHERE trust_policy_id = $1 AND revoked_at IS NULL RETURNING id',
      [rows[0].id],
    );
    await tx.query('DELETE FROM trust_policies WHERE id = $1', [rows[0].id]);
    await auditWrite(tx, actor, 'removeTrustPolicy', `trust policy ${name} (${revoked.length} keys revoked)`);
    return revoked.length;
  });
}
