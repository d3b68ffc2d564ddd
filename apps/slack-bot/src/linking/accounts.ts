import type { webApi } from '@slack/bolt';
import { type AccessChecker, isVaultError, type VaultClient } from '@vaultline/protocol';
import type { Identity, IdentityResolver } from '../identity.ts';
import type { ItemSearch } from '../search.ts';
import type { LinkedClients } from './clients.ts';
import type { LinkedAccount, LinkMethod, LinkStore } from './links.ts';

/** The vault account a piece of work runs as, and what the bot reads through it. */
export interface Account {
  /** The vault login: what the access checker and the audit name. */
  login: string;
  /** The client the work reads with. */
  vault: VaultClient;
  /** The access checker over it: the only thing that decides what the person sees. */
  access: AccessChecker;
  /** The search over it. */
  search: ItemSearch;
  /**
   * Whether it is the person's own linked account (every call runs as them, the vault enforces
   * their rights, and its refusals are theirs to fix), rather than the bot's key acting for them.
   */
  linked: boolean;
}

/** Why a Slack user has no vault account to act as. */
export type AccountFailure =
  | Exclude<Identity, { ok: true }>['reason']
  /** They have not linked their vault account. */
  | 'unlinked'
  /** The vault refused their linked credentials: they link again. */
  | 'link_refused'
  /** Their link cannot be opened with the configured keys: they link again. */
  | 'link_unreadable';

/** Who a Slack user is in the vault, as far as the bot knows without asking it. */
export type AccountIdentity =
  | {
      ok: true;
      login: string;
      /** How the account was linked, and when; undefined where the bot's key acts for people. */
      link: { method: LinkMethod; linkedAt: number } | undefined;
    }
  | { ok: false; reason: AccountFailure; login: string | undefined };

/** What {@link Accounts.use} came to. */
export type AccountUse<T> =
  | { ok: true; value: T; login: string }
  | { ok: false; reason: AccountFailure; login: string | undefined };

/**
 * How the bot reaches the vault for each person. Where one key reads every person's rights (the
 * legacy API: the Vaultline server, TeamPass 2), the bot's key acts for the login the identity
 * settings map the person to, and the bot's access checker enforces their rights. Where no key can
 * (the vault's capabilities say `otherUsers: false`: TeamPass 3), each person links their own
 * account and every call runs as them, so the vault enforces their rights itself.
 */
export interface Accounts {
  /** Whether each person links their own vault account. */
  readonly linking: boolean;
  /** The bot's own key's client, where it reads every person's rights; undefined where people link. */
  readonly shared: VaultClient | undefined;
  /**
   * Who a Slack user is in the vault, without asking the vault.
   *
   * @param slackUser The Slack user id.
   * @param client A Web API client (identity by profile email).
   */
  whoIs(slackUser: string, client: webApi.WebClient): Promise<AccountIdentity>;
  /**
   * Runs work as the Slack user's vault account. Where people link, a refusal of their
   * credentials (`unauthorized`, after the client signed in again once) marks the link refused:
   * the bot does not sign in with them again (each failed sign-in counts towards the vault's
   * lockout of the bot's address) until the person links again. A sign-in the vault locked for a
   * while (`sign_in_locked`) keeps the link: the error thrown carries how long to wait
   * (`retryAfterMs`).
   *
   * @param slackUser The Slack user id.
   * @param client A Web API client (identity by profile email).
   * @param work The work.
   * @returns What the work returned, or why there was no account to run it as.
   */
  use<T>(
    slackUser: string,
    client: webApi.WebClient,
    work: (account: Account) => Promise<T>,
  ): Promise<AccountUse<T>>;
  /**
   * Removes a person's link and signs its session token out of the vault (best effort).
   *
   * @param slackUser The Slack user id.
   * @returns The login that was linked, or undefined when there was no link.
   */
  unlink(slackUser: string): Promise<{ login: string } | undefined>;
  /** Lets a person's client go (their link was made again): the next work makes a new one. */
  forget(slackUser: string): void;
  /** Lets idle clients go. */
  sweep(): void;
  /** Lets every client go, keeping the sessions' tokens in the store. */
  close(): Promise<void>;
}

/** What the bot's key acts with, where one key reads everyone's rights. */
export interface SharedParts {
  vault: VaultClient;
  access: AccessChecker;
  search: ItemSearch;
  identity: IdentityResolver;
}

/**
 * The accounts where the bot's key reads every person's rights: the identity settings map each
 * Slack user to a login, and nobody links anything.
 *
 * @param shared The bot's client, access checker, search and identity resolver.
 * @returns The accounts.
 */
export function sharedAccounts(shared: SharedParts): Accounts {
  return {
    linking: false,
    shared: shared.vault,
    async whoIs(slackUser, client) {
      const identity = await shared.identity.resolve(slackUser, client);
      return identity.ok
        ? { ok: true, login: identity.login, link: undefined }
        : { ok: false, reason: identity.reason, login: undefined };
    },
    async use(slackUser, client, work) {
      const identity = await shared.identity.resolve(slackUser, client);
      if (!identity.ok) return { ok: false, reason: identity.reason, login: undefined };
      const value = await work({
        login: identity.login,
        vault: shared.vault,
        access: shared.access,
        search: shared.search,
        linked: false,
      });
      return { ok: true, value, login: identity.login };
    },
    async unlink() {
      return undefined;
    },
    forget() {},
    sweep() {},
    async close() {},
  };
}

/** What linked accounts are built on. */
export interface LinkedParts {
  links: LinkStore;
  clients: LinkedClients;
  /** Signs a removed link's session token out of the vault. */
  signOut(link: LinkedAccount, token: string): Promise<void>;
  /**
   * Told when the vault refused a link's credentials (for the audit, and the bot's budget of failed
   * sign-ins when it was a sign-in that failed).
   */
  onRefused(slackUser: string, login: string, signInFailed: boolean): Promise<void>;
  /**
   * Told when the vault said sign-ins are locked for a while.
   *
   * @returns How long (s) to tell the person to wait.
   */
  onLocked(slackUser: string, login: string): Promise<number>;
}

/**
 * The accounts where each person links their own vault account.
 *
 * @param parts The link store, the clients, and how to sign a token out.
 * @returns The accounts.
 */
export function linkedAccounts(parts: LinkedParts): Accounts {
  const { links, clients } = parts;
  return {
    linking: true,
    shared: undefined,
    async whoIs(slackUser) {
      const found = await links.get(slackUser);
      if (found.state === 'none') return { ok: false, reason: 'unlinked', login: undefined };
      if (found.state === 'unreadable') return { ok: false, reason: 'link_unreadable', login: found.login };
      const { link } = found;
      if (link.refusedAt !== undefined) return { ok: false, reason: 'link_refused', login: link.login };
      return { ok: true, login: link.login, link: { method: link.method, linkedAt: link.linkedAt } };
    },
    async use(slackUser, _client, work) {
      // Read at every use: a link removed or replaced on another instance is never used here.
      const found = await links.get(slackUser);
      if (found.state === 'none') {
        clients.retire(slackUser);
        return { ok: false, reason: 'unlinked', login: undefined };
      }
      if (found.state === 'unreadable') return { ok: false, reason: 'link_unreadable', login: found.login };
      const { link } = found;
      if (link.refusedAt !== undefined) {
        clients.retire(slackUser);
        return { ok: false, reason: 'link_refused', login: link.login };
      }
      const lease = clients.lease(link);
      try {
        const { client, access, search } = lease.session;
        const value = await work({ login: link.login, vault: client, access, search, linked: true });
        return { ok: true, value, login: link.login };
      } catch (error) {
        if (isVaultError(error, 'unauthorized') && error.reason === 'sign_in_locked') {
          // The vault locked sign-ins for a while (after failures, the bot's address's or this
          // login's): not a refusal of these credentials. The link is kept and used again after it.
          const seconds = await parts.onLocked(slackUser, link.login);
          throw error.with({ retryAfterMs: seconds * 1000 });
        }
        if (isVaultError(error, 'unauthorized')) {
          await links.markRefused(slackUser, link.version);
          clients.retire(slackUser);
          await parts.onRefused(slackUser, link.login, error.reason === 'sign_in_refused');
        }
        throw error;
      } finally {
        lease.release();
      }
    },
    async unlink(slackUser) {
      const removed = await links.remove(slackUser);
      clients.retire(slackUser);
      if (!removed) return undefined;
      if (removed.link && removed.token !== undefined) await parts.signOut(removed.link, removed.token);
      return { login: removed.login };
    },
    forget(slackUser) {
      clients.retire(slackUser);
    },
    sweep() {
      clients.sweep();
    },
    close: () => clients.close(),
  };
}
