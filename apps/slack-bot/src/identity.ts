import { readFile } from 'node:fs/promises';
import type { webApi } from '@slack/bolt';
import { LRUCache } from 'lru-cache';
import * as v from 'valibot';
import { PROFILE_CACHE_MS, PROFILE_CACHE_SIZE } from './constants.ts';
import type { Config } from './env.ts';

/** Who a Slack user is in the vault, or why they are nobody. */
export type Identity =
  | { ok: true; login: string }
  | { ok: false; reason: 'unmapped' | 'no_email' | 'not_member' | 'ambiguous_email' | 'lookup_failed' };

/** Finds the vault login of a Slack user. Never guesses: no mapping means no identity. */
export interface IdentityResolver {
  /**
   * Resolves a Slack user.
   *
   * @param slackUserId The Slack user id (U… or W…).
   * @param client A Web API client, for the profile email lookup.
   * @returns The login, or why there is none.
   */
  resolve(slackUserId: string, client: webApi.WebClient): Promise<Identity>;
}

/** An identity file error, naming the file and line. */
export class IdentityFileError extends Error {
  override name = 'IdentityFileError';
  readonly code = 'invalid_identity_file';
}

const SlackUserId = v.pipe(v.string(), v.regex(/^[UW][A-Z0-9]{2,30}$/, 'a Slack user id like U0123ABCD'));
const Login = v.pipe(
  v.string(),
  v.nonEmpty('a vault login'),
  v.maxLength(200, 'a login of at most 200 characters'),
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are refused.
  v.regex(/^[^/\\?#\u0000-\u001f\u007f]+$/, 'a login without / \\ ? # or control characters'),
);
const Email = v.pipe(v.string(), v.email('an email address'));

/** What one column of an operator's file holds, and the names a header line may give it. */
interface Column<T> {
  schema: v.GenericSchema<string, T>;
  /** Header names, folded (lower case, letters only). */
  names: readonly string[];
  /** The header name the README uses. */
  example: string;
}

/** The folded form of a header cell: `Slack User ID` → `slackuserid`. */
const fold = (cell: string) => cell.toLowerCase().replace(/[^a-z]/g, '');

const SLACK_USER_COLUMN: Column<string> = {
  schema: SlackUserId,
  names: [
    'slack',
    'slackid',
    'slackuser',
    'slackuserid',
    'slackmember',
    'slackmemberid',
    'memberid',
    'userid',
    'user',
  ],
  example: 'slack_user_id',
};
const LOGIN_COLUMN: Column<string> = {
  schema: Login,
  names: ['login', 'vaultlogin', 'vaultuser', 'teampasslogin', 'teampassuser', 'user', 'username'],
  example: 'vault_login',
};
const EMAIL_COLUMN: Column<string> = {
  schema: Email,
  names: ['email', 'mail', 'emailaddress', 'vaultemail'],
  example: 'email',
};

/**
 * Reads the rows of an operator's file: two comma-separated values a line, `#` comments and blank
 * lines skipped. Its first line may be a header naming the two columns (`slack_user_id,vault_login`,
 * `Login, Email`…): it is skipped. Any other line that is not a row stops the start, naming the
 * file and the line.
 */
function parseRows<A, B>(file: string, content: string, first: Column<A>, second: Column<B>): [A, B][] {
  const rows: [A, B][] = [];
  const lines = content.split(/\r?\n/);
  let seenContent = false;
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const isFirst = !seenContent;
    seenContent = true;
    const cells = line.split(',').map((cell) => cell.trim());
    const a = v.safeParse(first.schema, cells[0] ?? '');
    const b = v.safeParse(second.schema, cells[1] ?? '');
    if (cells.length === 2 && a.success && b.success) {
      rows.push([a.output, b.output]);
      continue;
    }
    if (
      isFirst &&
      cells.length === 2 &&
      first.names.includes(fold(cells[0] ?? '')) &&
      second.names.includes(fold(cells[1] ?? ''))
    )
      continue;
    const expected = !a.success
      ? a.issues[0].message
      : !b.success
        ? b.issues[0].message
        : 'two comma-separated values';
    const header = isFirst
      ? ` A header line must name the two columns, like "${first.example},${second.example}".`
      : '';
    throw new IdentityFileError(
      `${file}:${index + 1}: expected ${expected}, received ${JSON.stringify(line.slice(0, 80))}.${header}`,
    );
  }
  return rows;
}

/**
 * Reads a mapping file: one `slack_user_id,vault_login` a line, `#` comments and a header line
 * allowed.
 *
 * @param file The path.
 * @returns Slack user id → login.
 */
export async function readIdentityMap(file: string): Promise<Map<string, string>> {
  const rows = parseRows(file, await readFile(file, 'utf8'), SLACK_USER_COLUMN, LOGIN_COLUMN);
  return new Map(rows);
}

/**
 * Reads a user directory file: one `vault_login,email` a line, `#` comments and a header line
 * allowed. Emails that
 * more than one login carries are kept as ambiguous and never matched.
 *
 * @param file The path.
 * @returns Lower-cased email → login, or null when ambiguous.
 */
export async function readUserDirectory(file: string): Promise<Map<string, string | null>> {
  const rows = parseRows(file, await readFile(file, 'utf8'), LOGIN_COLUMN, EMAIL_COLUMN);
  const byEmail = new Map<string, string | null>();
  for (const [login, email] of rows) {
    const key = email.toLowerCase();
    byEmail.set(key, byEmail.has(key) && byEmail.get(key) !== login ? null : login);
  }
  return byEmail;
}

/**
 * Creates the resolver the configuration asks for.
 *
 * @param identity The identity settings.
 * @param now The clock, for the profile cache.
 * @returns The resolver.
 */
export async function createIdentityResolver(
  identity: Config['identity'],
  now: () => number = Date.now,
): Promise<IdentityResolver> {
  if (identity.mode === 'map') {
    const map = await readIdentityMap(identity.mapFile);
    return {
      resolve: async (slackUserId) => {
        const login = map.get(slackUserId);
        return login === undefined ? { ok: false, reason: 'unmapped' } : { ok: true, login };
      },
    };
  }
  const directory = await readUserDirectory(identity.directoryFile);
  // Profiles are trusted for a while: bounded, and each entry expires (now() is the cache's clock).
  const profiles = new LRUCache<string, { email: string | undefined; member: boolean }>({
    max: PROFILE_CACHE_SIZE,
    ttl: PROFILE_CACHE_MS,
    perf: { now },
  });
  let installTeam: string | undefined;
  const teamsOf = async (client: webApi.WebClient): Promise<readonly string[]> => {
    if (identity.teamIds) return identity.teamIds;
    installTeam ??= (await client.auth.test()).team_id;
    return installTeam ? [installTeam] : [];
  };
  return {
    async resolve(slackUserId, client) {
      let cached = profiles.get(slackUserId);
      if (!cached) {
        let email: string | undefined;
        let member = false;
        try {
          const teams = await teamsOf(client);
          const user = (await client.users.info({ user: slackUserId })).user;
          // Only a full member of our workspace (or an allowed one) is mapped by email: a stranger
          // from a shared channel, another team's user or (unless allowed) a guest chooses their
          // own profile email. A deactivated account or a bot is nobody.
          member =
            user !== undefined &&
            user.deleted !== true &&
            user.is_bot !== true &&
            user.is_stranger !== true &&
            user.team_id !== undefined &&
            teams.includes(user.team_id) &&
            (identity.allowGuests || (user.is_restricted !== true && user.is_ultra_restricted !== true));
          // Only an address Slack says it has confirmed counts; a missing flag is not a confirmation.
          email =
            member && user?.is_email_confirmed === true ? user.profile?.email?.toLowerCase() : undefined;
        } catch {
          return { ok: false, reason: 'lookup_failed' };
        }
        cached = { email, member };
        profiles.set(slackUserId, cached);
      }
      if (!cached.member) return { ok: false, reason: 'not_member' };
      if (!cached.email) return { ok: false, reason: 'no_email' };
      const login = directory.get(cached.email);
      if (login === null) return { ok: false, reason: 'ambiguous_email' };
      return login === undefined ? { ok: false, reason: 'unmapped' } : { ok: true, login };
    },
  };
}

/** What a person without an identity is told. */
export const IDENTITY_MESSAGES: Readonly<Record<Exclude<Identity, { ok: true }>['reason'], string>> = {
  unmapped:
    'Your Slack account is not linked to a vault user, so the bot shows you nothing. Ask a vault admin to link it.',
  no_email:
    'Your Slack profile has no confirmed email, so the bot cannot find your vault user. Ask a vault admin to link your account.',
  not_member:
    'Only full members of this workspace can be linked to a vault user by email, so the bot shows you nothing. Ask a vault admin to link your account.',
  ambiguous_email:
    'Your email belongs to more than one vault user, so the bot shows you nothing. Ask a vault admin to fix the directory.',
  lookup_failed: 'The bot could not read your Slack profile to find your vault user. Please try again later.',
};

/** What a person is told when their mapped login does not exist in the vault. */
export const UNKNOWN_LOGIN_MESSAGE =
  'Your Slack account is linked to a vault user the vault does not know, so the bot shows you nothing. Ask a vault admin to fix the link.';
