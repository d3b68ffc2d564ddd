import { createHmac } from 'node:crypto';
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
  /** The vault said sign-ins are locked (after too many failures): until the lock is over. */
  | 'vault_locked'
  /** The bot's budget of failed sign-ins for all its instances ran out: until its window ends. */
  | 'budget_spent'
  /** Too many failed attempts at this one login, whoever made them. */
  | 'login_capped';

/** A sign-in that may be tried: tell how it ended, once. */
export interface SignInTicket {
  /**
   * Ends the attempt: a refusal of the credentials keeps the failure counted; anything else
   * (signed in, no answer, a lock) gives it back.
   *
   * @param refused Whether the vault refused the credentials.
   */
  settle(refused: boolean): Promise<void>;
}

/**
 * The bot's failed sign-ins, counted in its store for all its instances. The vault locks the bot's
 * one address after a number of failed sign-ins (TeamPass 3: 30 in 24 h), and then nobody can
 * link or sign in again through the bot: so the bot spends at most `failedSignInsPerDay` failures
 * per 24 h itself, at most `failedSignInsPerLogin` on one login, and after the vault said it locked
 * sign-ins, tries none with unchecked credentials for `signInLockSeconds`.
 */
export interface SignInGuard {
  /**
   * Before a sign-in with credentials nobody checked yet (a link attempt): reserves one failure of
   * the bot's budget and of the login's, so that concurrent attempts on several instances never
   * spend more than the budget.
   *
   * @param login The login typed (only its keyed hash is stored).
   * @returns The ticket, or why not and for how long.
   */
  reserve(
    login: string,
  ): Promise<
    { ok: true; ticket: SignInTicket } | { ok: false; pause: SignInPause; retryAfterSeconds: number }
  >;
  /** A linked account's sign-in again was refused: one failure of the budget. */
  failed(): Promise<void>;
  /**
   * The vault said sign-ins are locked: link attempts wait for `signInLockSeconds`.
   *
   * @returns How long they wait, and whether this instance was the first to hear of this lock.
   */
  locked(): Promise<{ retryAfterSeconds: number; first: boolean }>;
  /**
   * Marks a pause as told to the link admins, once per pause and window.
   *
   * @param pause The pause.
   * @param login The login, for a login's cap.
   * @returns Whether it is the first time (tell them now).
   */
  firstNotice(pause: Exclude<SignInPause, 'vault_locked'>, login: string): Promise<boolean>;
}

const DAY_SECONDS = 86_400;

/**
 * Creates the guard of the bot's sign-ins, counted in the store's rate-limit table.
 *
 * @param db The store.
 * @param config The budget, the login cap and the lock wait.
 * @param loginKey A secret to key the logins' hashes with (a login typed may be a password).
 * @returns The guard.
 */
export function createSignInGuard(
  db: Database,
  config: Pick<Config, 'failedSignInsPerDay' | 'failedSignInsPerLogin' | 'signInLockSeconds'>,
  loginKey: Buffer,
): SignInGuard {
  const counter = (keyPrefix: string, points: number, durationSeconds: number) =>
    postgresCounter({ db, tableName: RATE_LIMIT_TABLE, keyPrefix, points, durationSeconds });
  const budget = counter('signin-failures', config.failedSignInsPerDay, DAY_SECONDS);
  const perLogin = counter('signin-failures-login', config.failedSignInsPerLogin, DAY_SECONDS);
  const lock = counter('signin-lock', 1, config.signInLockSeconds);
  const notices = counter('signin-notice', 1, DAY_SECONDS);
  const BOT = storageKey('bot');
  const loginOf = (login: string) =>
    storageKey(
      createHmac('sha256', loginKey).update(`login:${login.trim().toLowerCase()}`).digest('base64url'),
    );
  const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
  /** Takes one point; the refusal's wait when there was none left. */
  const take = async (
    limiter: ReturnType<typeof postgresCounter>,
    key: string,
  ): Promise<number | undefined> => {
    try {
      await limiter.consume(key, 1);
      return undefined;
    } catch (rejection) {
      if (rejection instanceof Error) throw rejection;
      const next = (rejection as { msBeforeNext?: unknown }).msBeforeNext;
      return seconds(typeof next === 'number' ? next : DAY_SECONDS * 1000);
    }
  };
  return {
    async reserve(login) {
      const held = await lock.get(BOT);
      if (held && held.consumedPoints > 0 && held.msBeforeNext > 0)
        return { ok: false, pause: 'vault_locked', retryAfterSeconds: seconds(held.msBeforeNext) };
      const key = loginOf(login);
      const loginWait = await take(perLogin, key);
      if (loginWait !== undefined) return { ok: false, pause: 'login_capped', retryAfterSeconds: loginWait };
      const budgetWait = await take(budget, BOT);
      if (budgetWait !== undefined) {
        await perLogin.reward(key, 1);
        return { ok: false, pause: 'budget_spent', retryAfterSeconds: budgetWait };
      }
      let settled = false;
      return {
        ok: true,
        ticket: {
          async settle(refused) {
            if (settled || refused) {
              settled = true;
              return;
            }
            settled = true;
            await Promise.all([budget.reward(BOT, 1), perLogin.reward(key, 1)]);
          },
        },
      };
    },
    async failed() {
      await budget.penalty(BOT, 1);
    },
    async locked() {
      const held = await lock.penalty(BOT, 1);
      return { retryAfterSeconds: seconds(held.msBeforeNext), first: held.consumedPoints === 1 };
    },
    async firstNotice(pause, login) {
      const key = pause === 'login_capped' ? storageKey(`${pause}:${loginOf(login)}`) : storageKey(pause);
      const noticed = await notices.penalty(key, 1);
      return noticed.consumedPoints === 1;
    },
  };
}
