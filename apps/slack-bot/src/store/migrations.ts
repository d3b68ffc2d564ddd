import { rateLimitTableSql } from '@vaultline/rate-limit';
import type { Migration } from '@vaultline/store';

/** The table the reveal and command limits count in (`@vaultline/rate-limit`'s layout). */
export const RATE_LIMIT_TABLE = 'rate_limits';

/**
 * The store's schema, one migration per version (`@vaultline/store` applies each once, under a
 * lock); a version once released is never edited, only followed by another. Times are epoch
 * milliseconds (bigint). No column ever holds a password, an API key or a token in clear: linked
 * credentials are sealed (version 3).
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'seen signatures, pending redactions, reveals, access requests, rate limits',
    sql: [
      // Request signatures seen recently: the same signed request is accepted once, by any instance.
      `CREATE TABLE seen_signatures (
       signature text PRIMARY KEY,
       expires_at bigint NOT NULL
     )`,
      'CREATE INDEX seen_signatures_expiry ON seen_signatures (expires_at)',
      // Revealed passwords still on screen: what replaces them (no password) and when.
      `CREATE TABLE pending_redactions (
       id text PRIMARY KEY,
       due_at bigint NOT NULL,
       target text NOT NULL,
       kind text NOT NULL,
       message jsonb NOT NULL,
       owner text NOT NULL,
       claimed_until bigint NOT NULL DEFAULT 0
     )`,
      'CREATE INDEX pending_redactions_due ON pending_redactions (due_at)',
      // Reveals, for the App Home's "recent reveals" (labels and times only).
      `CREATE TABLE reveals (
       slack_user text NOT NULL,
       item_id bigint NOT NULL,
       label text NOT NULL,
       at bigint NOT NULL
     )`,
      'CREATE INDEX reveals_user ON reveals (slack_user, at DESC)',
      // Access requests (#12) and the grants approval gives.
      `CREATE TABLE access_requests (
       id text PRIMARY KEY,
       requester text NOT NULL,
       requester_team text,
       requester_login text NOT NULL,
       typed text NOT NULL,
       reason text NOT NULL,
       item_id bigint,
       item_label text,
       folder_id bigint,
       approvers jsonb NOT NULL,
       status text NOT NULL,
       created_at bigint NOT NULL,
       expires_at bigint NOT NULL,
       decided_by text,
       decided_at bigint,
       grant_expires_at bigint,
       reveals_left integer NOT NULL DEFAULT 0,
       messages jsonb NOT NULL DEFAULT '[]'
     )`,
      'CREATE INDEX access_requests_requester ON access_requests (requester, status)',
      'CREATE INDEX access_requests_expiry ON access_requests (status, expires_at)',
      // rate-limiter-flexible's Postgres table (the same as this version first wrote out by hand),
      // created here so that instances never race to create it.
      rateLimitTableSql(RATE_LIMIT_TABLE),
    ].join(';\n'),
  },
  {
    version: 2,
    name: 'one pending access request per requester and what they typed',
    sql: [
      // One pending request per requester and what they asked for (#23): the key is what was typed,
      // an id or a folded label, never the item it resolves to (which the requester must not learn).
      // Requests made before have no key and are never matched; they expire as before.
      'ALTER TABLE access_requests ADD COLUMN dedupe_key text',
      `CREATE UNIQUE INDEX access_requests_one_pending ON access_requests (requester, dedupe_key)
       WHERE status = 'pending'`,
    ].join(';\n'),
  },
  {
    version: 3,
    name: 'linked vault accounts, sealed',
    sql: [
      // The vault accounts people link themselves, where the vault has no key that reads everyone's
      // rights (TeamPass 3). The credentials and the session token are sealed with AES-256-GCM
      // (`src/linking/sealer.ts`, the key from LINK_ENCRYPTION_KEY), never in clear; `key_id` names
      // the key that sealed them (for rotation; values of the first format name the key by another
      // id, so the bot seals them again in the current one at start). `version` is new at each link: what is sealed is
      // bound to the Slack user and to it. `refused_at`: the vault refused the credentials, so the
      // bot stops signing in with them until the person links again.
      `CREATE TABLE linked_accounts (
       slack_user text PRIMARY KEY,
       slack_team text,
       login text NOT NULL,
       method text NOT NULL,
       credentials text NOT NULL,
       session_token text,
       key_id text NOT NULL,
       version text NOT NULL,
       linked_at bigint NOT NULL,
       refused_at bigint
     )`,
      'CREATE INDEX linked_accounts_key ON linked_accounts (key_id)',
    ].join(';\n'),
  },
  {
    version: 4,
    name: 'failed sign-ins, counted as TeamPass counts them',
    sql: [
      // One row per failed sign-in through the bot (`failure`; a reservation while the attempt
      // runs), per lock TeamPass announced for a login (`lock`) and per member kept from a login
      // by its cap (`capped`, what a link admin's lift reaches). `login_key` is a keyed hash of
      // the login as TeamPass counts it, never the login. `lifted_at`: a link admin lifted it.
      `CREATE TABLE sign_in_failures (
       id bigserial PRIMARY KEY,
       kind text NOT NULL,
       slack_user text NOT NULL,
       login_key text NOT NULL,
       at bigint NOT NULL,
       lifted_at bigint
     )`,
      'CREATE INDEX sign_in_failures_at ON sign_in_failures (kind, at)',
      'CREATE INDEX sign_in_failures_login ON sign_in_failures (login_key, at)',
      'CREATE INDEX sign_in_failures_user ON sign_in_failures (slack_user, at)',
    ].join(';\n'),
  },
];
