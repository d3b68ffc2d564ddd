import { createHmac } from 'node:crypto';
import { signInLoginKey } from '@vaultline/protocol';
import {
  exactLimiter,
  type Limiter,
  postgresCounter,
  storageKey,
  writeBehindLimiter,
} from '@vaultline/rate-limit';
import type { Database } from '@vaultline/store';
import type { Config } from './env.ts';
import { RATE_LIMIT_TABLE } from './store/migrations.ts';

/**
 * The bot's two per-user limits, both kept in its store (PGlite or PostgreSQL):
 *
 * - reveals: every reveal is counted in the store before the password is shown, exact across
 *   instances and restarts (a store error refuses the reveal);
 * - commands and clicks: decided in memory before the ack and added to the store in batches every
 *   100 ms, so no statement runs before an ack (except a user's first command since the start).
 *   Across instances the count is approximate by at most one batch per instance (see
 *   `@vaultline/rate-limit`); a store that is down never fails a command.
 *
 * @param db The store.
 * @param config The limits.
 * @param onError Told when the command counts could not be read or written.
 * @returns The limiters; close the command limiter on shutdown.
 */
export function createLimiters(
  db: Database,
  config: Pick<Config, 'revealLimit' | 'revealWindowSeconds' | 'commandLimit' | 'commandWindowSeconds'>,
  onError: (error: unknown) => void,
): { revealLimiter: Limiter; commandLimiter: Limiter } {
  // The table comes from the store's first migration: nothing is created here.
  const counter = (keyPrefix: string, points: number, durationSeconds: number) =>
    postgresCounter({ db, tableName: RATE_LIMIT_TABLE, keyPrefix, points, durationSeconds });
  return {
    revealLimiter: exactLimiter(counter('reveal', config.revealLimit, config.revealWindowSeconds)),
    commandLimiter: writeBehindLimiter({
      shared: counter('command', config.commandLimit, config.commandWindowSeconds),
      onError,
    }),
  };
}

/** Why a sign-in with credentials not checked yet may not be tried now. */
export type SignInPause =
  /** The vault said sign-ins of this login are locked (after too many failures): until the lock is over. */
  | 'vault_locked'
  /** The bot's budget of failed sign-ins for all its instances ran out: until failures leave the window. */
  | 'budget_spent'
  /** Too many failed attempts at this one login, whoever made them. */
  | 'login_capped'
  /** Too many failed attempts by this one member, whatever the login. */
  | 'member_capped';

/** How a sign-in with unchecked credentials ended, as the vault counts it. */
export type SignInOutcome =
  /** Signed in: no failure. */
  | 'signed_in'
  /** The vault said sign-ins are locked: it counted no failure. */
  | 'locked'
  /** Refused, or no answer (a timeout): the vault counted, or may have counted, a failure. */
  | 'failed';

/** A sign-in that may be tried: tell how it ended, once. */
export interface SignInTicket {
  /**
   * Ends the attempt: a failure stays counted, a sign-in or a lock (which the vault does not
   * count) is given back.
   *
   * @param outcome How it ended.
   */
  settle(outcome: SignInOutcome): Promise<void>;
}

/** A refusal of a sign-in before it was tried. */
export interface SignInRefusal {
  ok: false;
  pause: SignInPause;
  retryAfterSeconds: number;
}

/**
 * The bot's failed sign-ins, counted in its store for all its instances, over the last 24 h as
 * TeamPass 3 counts them (`TEAMPASS3_SIGN_IN_LOCKOUT`): per login (as TeamPass spells it,
 * `signInLoginKey`), and for the bot's one address. The bot spends at most `failedSignInsPerDay`
 * failures itself, at most `failedSignInsPerLogin` on one login and at most
 * `failedSignInsPerMember` for one member, so that members cannot lock each other out and
 * TeamPass locks nobody; a link admin lifts a member's block. After the vault said a login is
 * locked, that login is tried no more for `signInLockSeconds`.
 */
export interface SignInGuard {
  /**
   * Before a sign-in with credentials nobody checked yet (a link attempt): reserves one failure,
   * so that concurrent attempts on several instances never spend more than allowed.
   *
   * @param member The Slack user trying.
   * @param login The login typed (only its keyed hash is stored).
   * @returns The ticket, or why not and for how long.
   */
  reserve(member: string, login: string): Promise<{ ok: true; ticket: SignInTicket } | SignInRefusal>;
  /**
   * A linked account's sign-in again was refused: one failure.
   *
   * @param member The Slack user.
   * @param login The linked login.
   */
  failed(member: string, login: string): Promise<void>;
  /**
   * The vault said sign-ins of a login are locked: it is tried no more for `signInLockSeconds`.
   *
   * @param login The login.
   * @returns How long it waits, and whether this instance was the first to hear of this lock.
   */
  locked(login: string): Promise<{ retryAfterSeconds: number; first: boolean }>;
  /**
   * Marks a pause as told to the link admins, once per pause, member or login, and window.
   *
   * @param pause The pause.
   * @param member The member, for a member's cap.
   * @param login The login, for a login's cap or lock.
   * @returns Whether it is the first time (tell them now).
   */
  firstNotice(pause: SignInPause, member: string, login: string): Promise<boolean>;
  /**
   * Lifts a member's block: their failures count no more for them, nor for the logins they were
   * kept from (they still count for the bot's address, as TeamPass counts them).
   *
   * @param member The Slack user.
   * @returns How many failures and logins were lifted.
   */
  lift(member: string): Promise<{ failures: number; logins: number }>;
  /**
   * What names a login in the audit and the admins' messages without showing it (a login typed
   * may be a password): a short keyed hash of the login as TeamPass counts it.
   *
   * @param login The login typed.
   * @returns `login#` and 12 characters.
   */
  loginRef(login: string): string;
}

const DAY_MS = 86_400_000;

/**
 * Creates the guard of the bot's sign-ins, counted in the store's `sign_in_failures` table.
 *
 * @param db The store.
 * @param config The budget, the caps and the lock wait.
 * @param loginKey A key for the logins' hashes only (a login typed may be a password).
 * @param now The clock.
 * @returns The guard.
 */
export function createSignInGuard(
  db: Database,
  config: Pick<
    Config,
    'failedSignInsPerDay' | 'failedSignInsPerLogin' | 'failedSignInsPerMember' | 'signInLockSeconds'
  >,
  loginKey: Uint8Array,
  now: () => number = Date.now,
): SignInGuard {
  const notices = postgresCounter({
    db,
    tableName: RATE_LIMIT_TABLE,
    keyPrefix: 'signin-notice',
    points: 1,
    durationSeconds: DAY_MS / 1000,
  });
  const hashOf = (login: string) =>
    createHmac('sha256', loginKey).update(signInLoginKey(login)).digest('base64url');
  const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
  const lockMs = config.signInLockSeconds * 1000;
  const insert = async (kind: 'failure' | 'lock' | 'capped', member: string, key: string, at: number) => {
    const [row] = await db.query<{ id: string | number }>(
      'INSERT INTO sign_in_failures (kind, slack_user, login_key, at) VALUES ($1, $2, $3, $4) RETURNING id',
      [kind, member, key, at],
    );
    return String(row?.id);
  };
  const lockOf = async (key: string, at: number) => {
    const [row] = await db.query<{ at: string | number | null }>(
      "SELECT max(at) AS at FROM sign_in_failures WHERE kind = 'lock' AND login_key = $1 AND at > $2",
      [key, at - lockMs],
    );
    return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
  };
  return {
    async reserve(member, login) {
      const at = now();
      const key = hashOf(login);
      const lock = await lockOf(key, at);
      if (lock !== undefined)
        return { ok: false, pause: 'vault_locked', retryAfterSeconds: seconds(lock + lockMs - at) };
      await db.query('DELETE FROM sign_in_failures WHERE at <= $1', [at - 2 * DAY_MS]);
      // Counted after the row is in: of attempts made at once, none passes a limit the others fill.
      const id = await insert('failure', member, key, at);
      const [counts] = await db.query<Record<string, string | number | null>>(
        `SELECT count(*) AS bot, min(at) AS bot_first,
           count(*) FILTER (WHERE slack_user = $2 AND lifted_at IS NULL) AS member,
           min(at) FILTER (WHERE slack_user = $2 AND lifted_at IS NULL) AS member_first,
           count(*) FILTER (WHERE login_key = $3 AND lifted_at IS NULL) AS login,
           min(at) FILTER (WHERE login_key = $3 AND lifted_at IS NULL) AS login_first
         FROM sign_in_failures WHERE kind = 'failure' AND at > $1`,
        [at - DAY_MS, member, key],
      );
      const over = (count: string, limit: number, first: string): SignInRefusal | undefined =>
        Number(counts?.[count] ?? 0) > limit
          ? {
              ok: false,
              pause:
                count === 'member' ? 'member_capped' : count === 'login' ? 'login_capped' : 'budget_spent',
              retryAfterSeconds: seconds(Number(counts?.[first] ?? at) + DAY_MS - at),
            }
          : undefined;
      const refusal =
        over('member', config.failedSignInsPerMember, 'member_first') ??
        over('login', config.failedSignInsPerLogin, 'login_first') ??
        over('bot', config.failedSignInsPerDay, 'bot_first');
      if (refusal) {
        await db.query('DELETE FROM sign_in_failures WHERE id = $1', [id]);
        if (refusal.pause === 'login_capped') await insert('capped', member, key, at);
        return refusal;
      }
      let settled = false;
      return {
        ok: true,
        ticket: {
          async settle(outcome) {
            if (settled) return;
            settled = true;
            if (outcome !== 'failed') await db.query('DELETE FROM sign_in_failures WHERE id = $1', [id]);
          },
        },
      };
    },
    async failed(member, login) {
      await insert('failure', member, hashOf(login), now());
    },
    async locked(login) {
      const at = now();
      const key = hashOf(login);
      const before = await lockOf(key, at);
      if (before !== undefined) return { retryAfterSeconds: seconds(before + lockMs - at), first: false };
      await insert('lock', '', key, at);
      return { retryAfterSeconds: seconds(lockMs), first: true };
    },
    async firstNotice(pause, member, login) {
      const about =
        pause === 'budget_spent'
          ? ''
          : pause === 'member_capped'
            ? `member:${member}`
            : `login:${hashOf(login)}`;
      const noticed = await notices.penalty(storageKey(`${pause}:${about}`), 1);
      return noticed.consumedPoints === 1;
    },
    async lift(member) {
      const at = now();
      return db.transaction(async (tx) => {
        const capped = await tx.query<{ login_key: string }>(
          "DELETE FROM sign_in_failures WHERE kind = 'capped' AND slack_user = $1 AND at > $2 RETURNING login_key",
          [member, at - DAY_MS],
        );
        const logins = [...new Set(capped.map((row) => row.login_key))];
        const lifted = await tx.query(
          `UPDATE sign_in_failures SET lifted_at = $3 WHERE kind = 'failure' AND lifted_at IS NULL AND at > $2
             AND (slack_user = $1 OR login_key = ANY($4::text[])) RETURNING id`,
          [member, at - DAY_MS, at, logins],
        );
        return { failures: lifted.length, logins: logins.length };
      });
    },
    loginRef(login) {
      return `login#${hashOf(login).slice(0, 12)}`;
    },
  };
}
