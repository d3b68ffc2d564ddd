import { randomBytes } from 'node:crypto';
import type { PasswordCredentials, PersonalAccessTokenCredentials, TokenCache } from '@vaultline/protocol';
import type { Database } from '@vaultline/store';
import * as v from 'valibot';
import type { Sealer } from './sealer.ts';

/** What a link signs in with: a login with its password and API key, or with a personal access token. */
export type LinkCredentials = PasswordCredentials | PersonalAccessTokenCredentials;

/** How an account was linked: the kind of its credentials (the core's), never the credentials. */
export type LinkMethod = LinkCredentials['kind'];

/**
 * How the `method` column and the audit's outcomes (`linked:token`) spell each kind: as the core
 * does, but `token` for a personal access token, as rows and records written before say it.
 * Written, never read: a link's kind is read from its credentials.
 */
export const METHOD_WORDS = {
  password: 'password',
  'personal-access-token': 'token',
} as const satisfies Readonly<Record<LinkMethod, string>>;

/** A linked account as the bot uses it. Its credentials are secrets: never logged, shown or audited. */
export interface LinkedAccount {
  slackUser: string;
  slackTeam: string | undefined;
  /** The vault login, as the vault names the signed-in user. */
  login: string;
  method: LinkMethod;
  /** New at each link: a client of an earlier link is never used for a later one. */
  version: string;
  linkedAt: number;
  /** When the vault refused the credentials; the bot does not sign in with them again. */
  refusedAt: number | undefined;
  /** What the client signs in with: {@link LinkedAccount.login}, and the password and API key or the token. */
  credentials: LinkCredentials;
}

/** What the store holds for a Slack user. */
export type LinkState =
  | { state: 'none' }
  /** A row no configured key opens (the key was changed without keeping the old one). */
  | { state: 'unreadable'; login: string }
  | { state: 'linked'; link: LinkedAccount };

/** What a link is made of. */
export interface NewLink {
  slackUser: string;
  slackTeam: string | undefined;
  /** The credentials the vault accepted, with the login as the vault names the signed-in user. */
  credentials: LinkCredentials;
  /** The session token the check signed in for, kept so that the first command needs no sign-in. */
  token: string | undefined;
}

/** The linked accounts, in the bot's store, sealed. */
export interface LinkStore {
  /** The Slack user's link (credentials opened), or why there is none. */
  get(slackUser: string): Promise<LinkState>;
  /**
   * Links (or links again: the earlier link and its token are replaced).
   *
   * @returns The link, and the earlier one's login when there was one.
   */
  save(link: NewLink): Promise<{ link: LinkedAccount; previous: string | undefined }>;
  /**
   * Removes a link.
   *
   * @returns What was removed (with its session token, to sign it out), or undefined.
   */
  remove(
    slackUser: string,
  ): Promise<{ link: LinkedAccount | undefined; login: string; token: string | undefined } | undefined>;
  /** Marks a link's credentials as refused by the vault (that link only, not a newer one). */
  markRefused(slackUser: string, version: string): Promise<void>;
  /** Where a link's session token is kept (sealed), for its client. */
  tokenCache(slackUser: string, version: string): TokenCache;
  /**
   * Seals again with the current key every row sealed with a previous one.
   *
   * @returns How many rows were sealed again, and how many no configured key opens.
   */
  rotate(): Promise<{ resealed: number; unreadable: number }>;
  /** How many accounts are linked. */
  count(): Promise<number>;
}

interface Row {
  slack_user: string;
  slack_team: string | null;
  login: string;
  method: string;
  credentials: string;
  session_token: string | null;
  key_id: string;
  version: string;
  linked_at: number | string;
  refused_at: number | string | null;
}

/**
 * The sealed credentials as stored: the secrets only (the login has its own column and is part of
 * the sealing context). Rows linked before keep opening: this format does not change.
 */
const StoredCredentialsSchema = v.union([
  v.strictObject({ password: v.string(), apiKey: v.string() }),
  v.strictObject({ personalAccessToken: v.string() }),
]);
type StoredCredentials = v.InferOutput<typeof StoredCredentialsSchema>;

/** The stored form of credentials: the token, or the password with the API key. */
function storedOf(credentials: LinkCredentials): StoredCredentials {
  if (credentials.kind === 'personal-access-token')
    return { personalAccessToken: credentials.personalAccessToken };
  return { password: credentials.password, apiKey: credentials.apiKey };
}

/** The credentials of a stored row, with its login. */
function credentialsOfRow(login: string, stored: StoredCredentials): LinkCredentials {
  return 'personalAccessToken' in stored
    ? { kind: 'personal-access-token', login, ...stored }
    : { kind: 'password', login, ...stored };
}

/** What a sealed field belongs to: its purpose, the Slack user, the link, and for credentials the login. */
const credentialsContext = (row: Pick<Row, 'slack_user' | 'version' | 'login'>) =>
  `credentials/${row.slack_user}/${row.version}/${row.login}`;
const sessionContext = (slackUser: string, version: string) => `session/${slackUser}/${version}`;

/**
 * Creates the link store.
 *
 * @param db The bot's store.
 * @param sealer Seals and opens the credentials and tokens.
 * @param now The clock.
 * @returns It.
 */
export function createLinkStore(db: Database, sealer: Sealer, now: () => number = Date.now): LinkStore {
  const openRow = (row: Row): LinkState => {
    const opened = sealer.open(row.credentials, credentialsContext(row));
    let stored: StoredCredentials | undefined;
    try {
      const parsed =
        opened === undefined ? undefined : v.safeParse(StoredCredentialsSchema, JSON.parse(opened));
      stored = parsed?.success ? parsed.output : undefined;
    } catch {
      stored = undefined;
    }
    if (!stored) return { state: 'unreadable', login: row.login };
    const credentials = credentialsOfRow(row.login, stored);
    return {
      state: 'linked',
      link: {
        slackUser: row.slack_user,
        slackTeam: row.slack_team ?? undefined,
        login: row.login,
        method: credentials.kind,
        version: row.version,
        linkedAt: Number(row.linked_at),
        refusedAt: row.refused_at === null ? undefined : Number(row.refused_at),
        credentials,
      },
    };
  };
  const openToken = (row: Pick<Row, 'slack_user' | 'version' | 'session_token'>) =>
    row.session_token === null
      ? undefined
      : sealer.open(row.session_token, sessionContext(row.slack_user, row.version));

  return {
    async get(slackUser) {
      const [row] = await db.query<Row>('SELECT * FROM linked_accounts WHERE slack_user = $1', [slackUser]);
      return row ? openRow(row) : { state: 'none' };
    },
    async save(link) {
      const version = randomBytes(12).toString('base64url');
      const at = now();
      const login = link.credentials.login;
      const method = link.credentials.kind;
      const keys = { slack_user: link.slackUser, version, login };
      const credentials = sealer.seal(JSON.stringify(storedOf(link.credentials)), credentialsContext(keys));
      const token =
        link.token === undefined ? null : sealer.seal(link.token, sessionContext(link.slackUser, version));
      const previous = await db.transaction(async (tx) => {
        const [before] = await tx.query<{ login: string }>(
          'SELECT login FROM linked_accounts WHERE slack_user = $1 FOR UPDATE',
          [link.slackUser],
        );
        await tx.query(
          `INSERT INTO linked_accounts (slack_user, slack_team, login, method, credentials, session_token,
             key_id, version, linked_at, refused_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL)
           ON CONFLICT (slack_user) DO UPDATE SET slack_team = $2, login = $3, method = $4,
             credentials = $5, session_token = $6, key_id = $7, version = $8, linked_at = $9,
             refused_at = NULL`,
          [
            link.slackUser,
            link.slackTeam ?? null,
            login,
            METHOD_WORDS[method],
            credentials,
            token,
            sealer.keyId,
            version,
            at,
          ],
        );
        return before?.login;
      });
      return {
        previous,
        link: {
          slackUser: link.slackUser,
          slackTeam: link.slackTeam,
          login,
          method,
          version,
          linkedAt: at,
          refusedAt: undefined,
          credentials: link.credentials,
        },
      };
    },
    async remove(slackUser) {
      const [row] = await db.query<Row>('DELETE FROM linked_accounts WHERE slack_user = $1 RETURNING *', [
        slackUser,
      ]);
      if (!row) return undefined;
      const opened = openRow(row);
      return {
        link: opened.state === 'linked' ? opened.link : undefined,
        login: row.login,
        token: openToken(row),
      };
    },
    async markRefused(slackUser, version) {
      await db.query(
        `UPDATE linked_accounts SET refused_at = $3, session_token = NULL
         WHERE slack_user = $1 AND version = $2 AND refused_at IS NULL`,
        [slackUser, version, now()],
      );
    },
    tokenCache(slackUser, version) {
      return {
        async get() {
          const [row] = await db.query<Pick<Row, 'slack_user' | 'version' | 'session_token'>>(
            'SELECT slack_user, version, session_token FROM linked_accounts WHERE slack_user = $1 AND version = $2',
            [slackUser, version],
          );
          return row ? openToken(row) : undefined;
        },
        async set(token) {
          // Only the link the client was made for: a token never lands on a newer link.
          await db.query(
            'UPDATE linked_accounts SET session_token = $3 WHERE slack_user = $1 AND version = $2',
            [
              slackUser,
              version,
              token === undefined ? null : sealer.seal(token, sessionContext(slackUser, version)),
            ],
          );
        },
      };
    },
    async rotate() {
      const rows = await db.query<Row>('SELECT * FROM linked_accounts WHERE key_id <> $1', [sealer.keyId]);
      let resealed = 0;
      let unreadable = 0;
      for (const row of rows) {
        const credentials = sealer.open(row.credentials, credentialsContext(row));
        if (credentials === undefined) {
          unreadable += 1;
          continue;
        }
        const token = openToken(row);
        // Only the row as it was read: a link made meanwhile (another instance) is left alone.
        const updated = await db.query(
          `UPDATE linked_accounts SET credentials = $3, session_token = $4, key_id = $5
           WHERE slack_user = $1 AND version = $2 AND key_id = $6 RETURNING slack_user`,
          [
            row.slack_user,
            row.version,
            sealer.seal(credentials, credentialsContext(row)),
            token === undefined ? null : sealer.seal(token, sessionContext(row.slack_user, row.version)),
            sealer.keyId,
            row.key_id,
          ],
        );
        resealed += updated.length;
      }
      return { resealed, unreadable };
    },
    async count() {
      const rows = await db.query<{ n: number | string }>('SELECT count(*) AS n FROM linked_accounts');
      return Number(rows[0]?.n ?? 0);
    },
  };
}
